package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A Shape is one secret written the way it turns up in a chat: Values are
// the pieces that must be gone after redaction (a PEM block's every line,
// a password), Family the class of leak it stands for.
type Shape struct {
	Family, Name, Text string
	Values             []string
}

// gen makes the random parts of the field table from a fixed seed: every
// value is synthesised here, none was ever issued.
type gen struct{ r *rand.Rand }

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowers = "abcdefghijklmnopqrstuvwxyz0123456789"
	hexes  = "0123456789abcdef"
	b58    = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	b64url = alnum + "-_"
	b32    = "abcdefghijklmnopqrstuvwxyz234567"
	crock  = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
)

func (g gen) of(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// mixed is n characters of alphabet holding an upper-case letter, a
// lower-case letter and a digit, as every generated password here does.
func (g gen) mixed(alphabet string, n int) string {
	for {
		v := g.of(alphabet, n)
		if strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(v, "0123456789") && !strings.Contains(strings.ToLower(v), "xxx") {
			return v
		}
	}
}

func (g gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return b
}

// pass is a password as people pick them: letters, digits, a symbol.
func (g gen) pass() string {
	return g.mixed(alnum, 8+g.r.IntN(6)) + string("!*~+-_"[g.r.IntN(6)]) + g.of("0123456789", 2)
}

// wrap cuts b64 into PEM's 64-column lines.
func wrap(b64 string) []string {
	var lines []string
	for len(b64) > 64 {
		lines = append(lines, b64[:64])
		b64 = b64[64:]
	}
	return append(lines, b64)
}

// FieldShapes are the secrets of issue 27's families, each family as a
// class: PEM blocks in every whitespace, blobs under secret names,
// provider tokens of any length, secret names in every case, separator and
// language, connection strings of every driver, command lines and calls
// that take a password. The field's scanners were read for which shapes
// exist; no value or text was copied from them.
func FieldShapes() []Shape {
	g := gen{rand.New(rand.NewPCG(27, 2026))}
	var out []Shape
	add := func(family, name, text string, values ...string) {
		out = append(out, Shape{family, name, text, values})
	}

	// Private keys, whatever the whitespace around and inside them.
	for _, lbl := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"} {
		lines := wrap(base64.StdEncoding.EncodeToString(g.bytes(300)))
		begin, end := "-----BEGIN "+lbl+"-----", "-----END "+lbl+"-----"
		body := strings.Join(lines, "\n")
		// The short last line is key material too: a flattened block must
		// not leave it behind.
		first, last, tail := lines[0], lines[len(lines)-2], lines[len(lines)-1]
		add("pem", lbl+" with a trailing space on BEGIN", begin+" \n"+body+"\n"+end, first, last, tail)
		add("pem", lbl+" after a whitespace-only line", begin+"\n   \n"+body+"\n"+end, first, last, tail)
		add("pem", lbl+" with trailing spaces on every line", begin+"  \n"+strings.Join(lines, "  \n")+"  \n"+end+"  ", first, last, tail)
		add("pem", lbl+" with CRLF", begin+"\r\n"+strings.Join(lines, "\r\n")+"\r\n"+end+"\r\n", first, last, tail)
		add("pem", lbl+" indented in YAML", "tls:\n  key: |\n    "+begin+"\n    "+strings.Join(lines, "\n    ")+"\n    "+end+"\n  cert: cert.pem", first, last, tail)
		add("pem", lbl+" with escaped newlines in JSON", `{"private_key": "`+begin+`\n`+strings.Join(lines, `\n`)+`\n`+end+`\n"}`, first, last, tail)
		add("pem", lbl+" quoted in markdown", "> "+begin+"\n> "+strings.Join(lines, "\n> ")+"\n> "+end, first, last, tail)
	}
	pemKey := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(wrap(base64.StdEncoding.EncodeToString(g.bytes(600))), "\n") + "\n-----END RSA PRIVATE KEY-----\n"
	keyData := base64.StdEncoding.EncodeToString([]byte(pemKey))

	// Blobs under secret names, and inside kubeconfig and docker shapes.
	add("blob", "kubeconfig client-key-data", "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\n    client-key-data: "+keyData, keyData[40:120])
	add("blob", "kubeconfig client-key-data in JSON", `{"client-key-data":"`+keyData+`"}`, keyData[40:120])
	dockerAuth := base64.StdEncoding.EncodeToString([]byte("deploy:" + g.pass()))
	dockerCfg := base64.StdEncoding.EncodeToString([]byte(`{"auths":{"registry.corp.dev":{"username":"deploy","password":"` + g.mixed(alnum, 24) + `","auth":"` + dockerAuth + `"}}}`))
	add("blob", "dockerconfigjson in a Secret", "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: "+dockerCfg, dockerCfg[20:80])
	add("blob", "docker config.json auth", `{"auths": {"https://index.docker.io/v1/": {"auth": "`+dockerAuth+`"}}}`, dockerAuth)
	short := base64.StdEncoding.EncodeToString([]byte("ci:" + g.mixed(alnum, 10)))
	add("blob", "npmrc _auth", "registry=https://npm.corp.dev/\n_auth="+short+"\nalways-auth=true", short)
	short2 := base64.StdEncoding.EncodeToString([]byte("me:" + g.mixed(alnum, 12)))
	add("blob", "npmrc scoped _auth", "//npm.corp.dev/:_auth="+short2, short2)
	short3 := base64.StdEncoding.EncodeToString([]byte("bot:" + g.mixed(alnum, 14)))
	add("blob", "yarnrc npmAuthIdent", `npmAuthIdent: "`+short3+`"`, short3)
	for _, n := range []int{300, 600, 1200} {
		v := base64.StdEncoding.EncodeToString(g.bytes(n))
		add("blob", fmt.Sprintf(".env secret of %d bytes", n), "APP_ENCRYPTION_KEY="+v, v[:60])
		add("blob", fmt.Sprintf("unnamed base64 blob of %d bytes", n), "here is the value: "+v+" keep it safe", v[:60])
	}
	sa := base64.StdEncoding.EncodeToString([]byte(`{"type": "service_account", "private_key": "` + strings.ReplaceAll(pemKey, "\n", `\n`) + `"}`))
	add("blob", "base64 service account under a credentials name", "GOOGLE_CREDENTIALS="+sa, sa[100:160])
	add("blob", "base64 service account with no name", "echo "+sa+" | base64 -d > sa.json", sa[100:160])
	kb := g.of(hexes, 128)
	add("blob", "SECRET_KEY_BASE hex", "SECRET_KEY_BASE="+kb, kb)
	k8s := base64.StdEncoding.EncodeToString([]byte(g.pass()))
	add("blob", "kubernetes secret data", "kind: Secret\ndata:\n  password: "+k8s+"\n  username: YWRtaW4=", k8s)
	tlsKey := base64.StdEncoding.EncodeToString([]byte(pemKey))
	add("blob", "kubernetes tls.key", "kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: "+tlsKey, tlsKey[60:140])
	wg := base64.StdEncoding.EncodeToString(g.bytes(32))
	add("blob", "wireguard private key", "[Interface]\nPrivateKey = "+wg+"\nAddress = 10.0.0.2/32", wg)
	laravel := "base64:" + base64.StdEncoding.EncodeToString(g.bytes(32))
	add("blob", "laravel APP_KEY", "APP_KEY="+laravel, laravel[7:])

	// Provider tokens of any length, each with a prefix of its own.
	tokens := []struct {
		name, prefix, alphabet string
		n                      int
	}{
		{"fireworks key", "fw_", alnum, 24}, {"neon api key", "napi_", lowers, 64}, {"netlify token", "nfp_", alnum, 40},
		{"render key", "rnd_", alnum, 32}, {"posthog personal key", "phx_", alnum, 47}, {"sonarqube user token", "squ_", hexes, 40},
		{"sonarqube project token", "sqp_", hexes, 40}, {"sonarqube analysis token", "sqa_", hexes, 40},
		{"supabase secret key", "sb_secret_", b64url, 31}, {"tailscale auth key", "tskey-auth-", alnum, 40},
		{"tailscale api key", "tskey-api-", alnum, 40}, {"tailscale oauth secret", "tskey-client-", alnum, 40},
		{"slack refresh token", "xoxe-1-", alnum, 140}, {"slack config token", "xoxe.xoxp-1-", alnum, 160},
		{"1password service account token", "ops_eyJ", b64url, 600}, {"google oauth access token", "ya29.", b64url, 300},
		{"dropbox short-lived token", "sl.u.", b64url, 1100}, {"dropbox legacy token", "sl.", b64url, 135},
		{"google oauth client secret", "GOCSPX-", b64url, 28}, {"google refresh token", "1//0", b64url, 100},
		{"atlassian api token", "ATATT3xFfGF0", b64url, 180}, {"dynatrace token", "dt0c01.", crock, 24},
		{"nuget key", "oy2", "abcdefghijklmnopqrstuvwxyz234567", 43}, {"heroku key", "HRKU-", b64url, 60},
		{"contentful token", "CFPAT-", b64url, 43}, {"astra token", "AstraCS:", alnum, 90}, {"nvidia key", "nvapi-", b64url, 64},
		{"easypost key", "EZAK", alnum, 54}, {"bitbucket app password", "ATBB", alnum, 32},
		{"mapbox secret token", "sk.eyJ1Ijoi", b64url, 80}, {"prefect key", "pnu_", alnum, 36},
		{"readme key", "rdme_", hexes, 70}, {"facebook token", "EAAG", alnum, 180}, {"cerebras key", "csk-", lowers, 48},
		{"anthropic admin key", "sk-ant-admin01-", b64url, 93}, {"openai project key", "sk-proj-", b64url, 156},
		{"github fine-grained token", "github_pat_11A", alnum, 80}, {"gitlab token", "glpat-", b64url, 20},
		{"vault batch token", "hvb.", b64url, 138}, {"huggingface token", "hf_", alnum, 34},
		{"firebase server key", "AAAA", b64url, 7}, {"shopify shared secret", "shpss_", hexes, 32},
	}
	for _, tk := range tokens {
		v := tk.prefix + g.of(tk.alphabet, tk.n)
		if tk.alphabet == alnum || tk.alphabet == b64url {
			v = tk.prefix + g.mixed(tk.alphabet, tk.n)
		}
		if tk.name == "firebase server key" {
			v = "AAAA" + g.mixed(alnum, 7) + ":APA91b" + g.mixed(b64url, 134)
		}
		secret := v[len(tk.prefix):]
		add("token", tk.name+" in prose", "the "+tk.name+" is "+v+" for now", secret)
		add("token", tk.name+" in a header", "curl -H 'X-Token: "+v+"' https://api.corp.dev/v1", secret)
	}

	// Names that say secret, in any case and separator.
	names := []string{
		"SECRET_KEY_BASE", "HMAC_KEY", "AES_KEY", "DD_APP_KEY", "DD_API_KEY", "ALGOLIA_ADMIN_KEY", "DB_PW", "REDIS_AUTH",
		"AZURE_CREDENTIALS", "GCP_SA_CREDENTIALS", "TOTP_SEED", "OTP_SECRET", "JWT_SIGNING_KEY", "COOKIE_SECRET",
		"MASTER_KEY", "WEBHOOK_SECRET", "CLIENT_SECRET", "NEXTAUTH_SECRET", "SMTP_PASS", "MAIL_PASSWORD",
		"RABBITMQ_DEFAULT_PASS", "PGPASSWORD", "KEYSTORE_PASS", "LDAP_BIND_PW", "VPN_PSK", "WIFI_PSK", "SHARED_SECRET",
		"CONSUMER_SECRET", "SLACK_SIGNING_SECRET", "PRIVATE_KEY_PASSPHRASE", "SEED_PHRASE", "ENCRYPTION_KEY_B64",
		"SESSION_SECRET", "AUTH_KEY", "ADMIN_PASSWD", "STORE_PASSWORD", "SIGNING_KEY_PASSWORD", "DB_CREDS", "API_SECRET",
	}
	for i, n := range names {
		v := g.mixed(alnum, 20+i%12)
		words := strings.Split(strings.ToLower(n), "_")
		camel := words[0]
		for _, w := range words[1:] {
			camel += strings.ToUpper(w[:1]) + w[1:]
		}
		kebab := strings.Join(words, "-")
		switch i % 5 {
		case 0:
			add("name", n+" in a dotenv", n+"="+v, v)
			add("name", camel+" in TypeScript", "const config = { "+camel+": '"+v+"' };", v)
		case 1:
			add("name", n+" exported", "export "+n+"=\""+v+"\"", v)
			add("name", kebab+" in YAML", "  "+kebab+": "+v, v)
		case 2:
			add("name", n+" in docker compose", "    environment:\n      - "+n+"="+v, v)
			add("name", strings.ToLower(n)+" in JSON", `{"`+strings.ToLower(n)+`": "`+v+`"}`, v)
		case 3:
			add("name", n+" in TOML", strings.ToLower(n)+" = \""+v+"\"", v)
			add("name", camel+" in Go", "cfg := Config{"+strings.ToUpper(camel[:1])+camel[1:]+": \""+v+"\"}", v)
		case 4:
			add("name", n+" in a Helm set", "helm install app ./chart --set "+camel+"="+v, v)
			add("name", kebab+" as a flag", "./server --"+kebab+"="+v, v)
		}
	}
	eth := g.of(hexes, 64)
	add("name", "ethereum key without 0x", "PRIVATE_KEY="+eth, eth)
	eth2 := g.of(hexes, 64)
	add("name", "ethereum key in a foundry flag", "forge script Deploy --rpc-url $RPC --private-key "+eth2+" --broadcast", eth2)
	eth3 := g.of(hexes, 64)
	add("name", "ethereum key in ethers", `const wallet = new ethers.Wallet("`+eth3+`", provider);`, eth3)
	eth4 := g.of(hexes, 64)
	add("name", "ethereum key in prose", "my metamask private key is "+eth4+" please check", eth4)
	eth5 := g.of(hexes, 64)
	add("name", "ethereum key as signer_key", "signer_key: "+eth5, eth5)
	psk := g.pass()
	add("name", "wpa_supplicant psk", "network={\n  ssid=\"home\"\n  psk=\""+psk+"\"\n}", psk)
	wpa := g.pass()
	add("name", "hostapd wpa_passphrase", "wpa_passphrase="+wpa, wpa)
	rp := g.pass()
	add("name", "redis requirepass", "requirepass "+rp, rp)
	ma := g.pass()
	add("name", "redis masterauth", "masterauth "+ma, ma)
	rc := g.pass()
	add("name", "redis CONFIG SET", "redis-cli CONFIG SET requirepass "+rc, rc)

	// Secrets named in prose, in ten languages.
	prose := []string{
		"mon mot de passe est %s, ne le partage pas", "Le mot de passe : %s", "le mdp c'est %s",
		"Mein Passwort ist %s und der Benutzer admin", "Das Kennwort lautet %s.", "Passwort: %s",
		"mi contraseña es %s gracias", "La contraseña: %s", "clave de acceso: %s",
		"我的密码是%s，请帮我登录", "密码：%s", "数据库密码为 %s",
		"パスワードは%sです", "パスワード: %s", "管理者のパスワードは %s です",
		"мой пароль: %s", "Пароль — %s", "пароль от базы %s",
		"minha senha é %s", "a senha: %s", "Senha do banco: %s",
		"la mia password è %s", "parola d'ordine: %s", "la password del database è %s",
		"비밀번호는 %s 입니다", "비밀번호: %s", "암호는 %s",
		"the root password is %s", "password for the vpn: %s", "clé API : %s", "API-Schlüssel: %s",
		"API密钥：%s", "APIキー: %s", "ключ API: %s", "chave da API: %s", "chiave API: %s", "API 키: %s",
	}
	for _, p := range prose {
		v := g.pass()
		add("prose", p, fmt.Sprintf(p, v), v)
	}

	// Connection strings of every driver.
	dsn := []string{
		"db, err := sql.Open(\"mysql\", \"root:%s@tcp(127.0.0.1:3306)/shop?parseTime=true\")",
		"DSN=app:%s@tcp(db.internal:3306)/orders",
		"dsn := \"app:%s@unix(/var/run/mysqld/mysqld.sock)/app\"",
		"jdbc:mysql://db:3306/shop?user=app&password=%s&useSSL=false",
		"jdbc:sqlserver://db:1433;databaseName=shop;user=sa;password=%s;encrypt=true",
		"jdbc:postgresql://db/shop?user=app&password=%s",
		"jdbc:oracle:thin:scott/%s@db.internal:1521:ORCL",
		"Driver={ODBC Driver 18 for SQL Server};Server=tcp:db,1433;Database=shop;UID=sa;PWD=%s;",
		"DSN=warehouse;UID=etl;PWD=%s",
		"Server=tcp:corp.database.windows.net,1433;Initial Catalog=shop;User ID=app;Password=%s;Encrypt=True;",
		"Data Source=db;Initial Catalog=shop;User Id=sa;Password=%s",
		"conn = psycopg2.connect(\"host=db port=5432 dbname=shop user=app password=%s sslmode=require\")",
		"psql \"host=db dbname=shop user=app password=%s\"",
		"db.internal:5432:shop:app:%s",
		"*:*:*:postgres:%s",
		"sqlplus scott/%s@//db.internal:1521/ORCL",
		"expdp system/%s@orcl schemas=hr directory=dump",
		"CONNECT hr/%s@xepdb1",
		"mongodb://app:%s@mongo1:27017,mongo2:27017/shop?replicaSet=rs0",
		"mongodb+srv://admin:%s@cluster0.abcde.mongodb.net/",
		"redis://:%s@cache.internal:6379/0",
		"rediss://default:%s@redis-12345.c1.cloud.redislabs.com:12345",
		"CREATE USER app WITH PASSWORD '%s';",
		"ALTER ROLE postgres WITH ENCRYPTED PASSWORD '%s';",
		"ALTER USER postgres PASSWORD '%s';",
		"CREATE USER 'app'@'%%' IDENTIFIED BY '%s';",
		"ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '%s';",
		"CREATE USER scott IDENTIFIED BY %s;",
		"ALTER LOGIN sa WITH PASSWORD = '%s';",
		"SET PASSWORD FOR 'app'@'localhost' = '%s';",
		"CREATE LOGIN etl WITH PASSWORD = N'%s', CHECK_POLICY = OFF;",
		"machine api.heroku.com login me@corp.dev password %s",
		"machine github.com\n  login bot\n  password %s",
		"default login anonymous password %s",
		"amqp://app:%s@rabbit:5672/vhost",
		"Host=db;Database=shop;Username=app;Password=%s",
		"clickhouse://default:%s@ch:9000/default",
	}
	for _, d := range dsn {
		v := g.pass()
		add("dsn", d, fmt.Sprintf(d, v), v)
	}

	// Command lines that take a password as a flag or on standard input.
	cli := []string{
		"echo %s | sudo -S apt-get update",
		"echo '%s' | sudo -S -k systemctl restart nginx",
		"run \"echo %s | sudo -S apt-get upgrade\" on the box",
		"`echo %s | sudo -S reboot`",
		"I ran 'mysql -uroot -p%s shop' on the replica",
		"the step \"curl -u deploy:%s https://ci.corp.dev/job\" failed",
		"printf '%%s\\n' \"%s\" | sudo --stdin reboot",
		"sudo -S <<< '%s' apt install -y jq",
		"echo \"%s\" | docker login -u ci --password-stdin ghcr.io",
		"echo 'deploy:%s' | sudo chpasswd",
		"echo %s | passwd --stdin deploy",
		"mysql -uroot -p%s -e 'show databases'",
		"mysql -u root --password=%s shop",
		"mysqldump --user=backup --password='%s' --all-databases",
		"PGPASSWORD=%s psql -h db -U app shop",
		"keytool -genkey -alias app -keystore app.jks -storepass %s -keypass changeme2",
		"keytool -importkeystore -srckeystore a.p12 -srcstorepass %s -destkeystore b.jks",
		"jarsigner -keystore app.jks -storepass %s app.apk release",
		"openssl pkcs12 -export -in c.pem -inkey k.pem -out c.p12 -passout pass:%s",
		"openssl rsa -in enc.pem -passin pass:%s -out dec.pem",
		"openssl pkcs12 -in c.p12 -nodes -password pass:%s",
		"openssl enc -aes-256-cbc -k %s -in a -out a.enc",
		"nmcli dev wifi connect HomeNet password %s",
		"nmcli device wifi connect \"Office 5G\" password '%s' ifname wlan0",
		"nmcli con modify HomeNet wifi-sec.psk %s",
		"htpasswd -b /etc/nginx/.htpasswd admin %s",
		"htpasswd -nbB admin %s",
		"docker login -u bot -p %s registry.corp.dev",
		"docker login --username bot --password=%s",
		"curl -u admin:%s https://jenkins.corp.dev/api/json",
		"curl --user 'bot:%s' -X POST https://api.corp.dev",
		"ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P %s power status",
		"gpg --batch --passphrase %s -d secrets.gpg",
		"svn checkout https://svn.corp.dev/repo --username me --password %s",
		"net user deploy %s /add",
		"sshpass -p '%s' ssh root@10.0.0.5",
		"redis-cli -h cache -a %s info",
		"mongosh -u admin -p %s --authenticationDatabase admin",
		"sqlcmd -S db -U sa -P %s -Q 'select 1'",
		"wget --user=ci --password=%s https://nexus.corp.dev/x.jar",
		"mount -t cifs //nas/share /mnt -o username=me,password=%s",
		"smbclient //nas/share -U me%%%s",
		"rabbitmqctl add_user app %s",
		"rabbitmqctl change_password admin %s",
	}
	for _, c := range cli {
		v := g.pass()
		add("cli", c, fmt.Sprintf(c, v), v)
	}

	// Calls that take a password as an argument.
	calls := []string{
		"server = smtplib.SMTP_SSL('smtp.gmail.com', 465)\nserver.login('me@gmail.com', '%s')",
		"smtp.login(\"alerts@corp.dev\", \"%s\")",
		"imap.login('me@corp.dev', '%s')",
		"ftp.login(user='upload', passwd='%s')",
		"ftp.login('upload', '%s')",
		"r = requests.get(url, auth=('admin', '%s'))",
		"requests.post(url, json=body, auth=(\"bot\", \"%s\"))",
		"session.auth = ('api', '%s')",
		"auth = HTTPBasicAuth('admin', '%s')",
		"httpx.Client(auth=(\"u\", \"%s\"))",
		"aiohttp.BasicAuth('bot', '%s')",
		"ssh.connect('10.0.0.5', username='root', password='%s')",
		"client.connect(\"bastion\", 22, \"ubuntu\", \"%s\")",
		"conn.simple_bind_s('cn=admin,dc=corp,dc=dev', '%s')",
		"l.bind_s(\"uid=svc,ou=people,dc=corp\", \"%s\")",
		"conn = Connection(server, user='cn=admin,dc=corp', password='%s', auto_bind=True)",
		"db = pymysql.connect('localhost', 'root', '%s', 'shop')",
		"auth := smtp.PlainAuth(\"\", \"me@corp.dev\", \"%s\", \"smtp.corp.dev\")",
		"req.SetBasicAuth(\"admin\", \"%s\")",
		"new PasswordAuthentication(\"admin\", \"%s\".toCharArray())",
		"mysql.connector.connect(host='db', user='app', password='%s')",
		"transporter = nodemailer.createTransport({ auth: { user: 'me', pass: '%s' } })",
	}
	for _, c := range calls {
		v := g.pass()
		add("call", c, fmt.Sprintf(c, v), v)
	}
	return out
}

// FieldLookalikes look random and are public: IDs, addresses, hashes,
// public and publishable keys, images, and texts about secrets that hold
// none. Redaction must leave each exactly as it is.
func FieldLookalikes() []Lookalike {
	g := gen{rand.New(rand.NewPCG(27, 1))}
	var out []Lookalike
	add := func(name, text string) { out = append(out, Lookalike{name, text}) }
	uuid := func() string {
		h := g.of(hexes, 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	for i := range 3 {
		add(fmt.Sprint("uuid ", i), "request_id="+uuid()+" took 31ms")
		add(fmt.Sprint("ulid ", i), "order 01"+g.of(crock, 24)+" shipped")
		add(fmt.Sprint("ksuid ", i), "event id 2"+g.of(alnum, 26)+" received")
		add(fmt.Sprint("cidv0 ", i), "ipfs cat Qm"+g.of(b58, 44))
		add(fmt.Sprint("cidv1 ", i), "https://bafybei"+g.of(b32, 52)+".ipfs.dweb.link/")
		add(fmt.Sprint("bitcoin legacy address ", i), "send 0.01 BTC to 1"+g.of(b58, 33))
		add(fmt.Sprint("bitcoin p2sh address ", i), "deposit address 3"+g.of(b58, 33))
		add(fmt.Sprint("bitcoin bech32 address ", i), "bc1q"+g.of("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38))
		add(fmt.Sprint("solana address ", i), "solana transfer --to "+g.of(b58, 44)+" 1.5")
		add(fmt.Sprint("solana signature ", i), "Signature: "+g.of(b58, 88))
		add(fmt.Sprint("solana program id ", i), `declare_id!("`+g.of(b58, 43)+`");`)
		add(fmt.Sprint("git sha ", i), "git revert "+g.of(hexes, 40))
		add(fmt.Sprint("short git sha ", i), "cherry-picked "+g.of(hexes, 7)+" onto main")
		add(fmt.Sprint("npm integrity ", i), `"integrity": "sha512-`+base64.StdEncoding.EncodeToString(g.bytes(64))+`"`)
		add(fmt.Sprint("sha256 digest ", i), "sha256:"+g.of(hexes, 64))
		add(fmt.Sprint("ssh ed25519 public key ", i), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+base64.StdEncoding.EncodeToString(g.bytes(32))[:43]+" ci@build")
		add(fmt.Sprint("ssh rsa public key ", i), "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"+base64.StdEncoding.EncodeToString(g.bytes(256))+" me@laptop")
		add(fmt.Sprint("stripe publishable key ", i), "const stripe = Stripe('pk_live_"+g.mixed(alnum, 99)+"');")
		add(fmt.Sprint("mapbox public token ", i), "mapboxgl.accessToken = 'pk."+base64.RawURLEncoding.EncodeToString([]byte(`{"u":"acme-maps","a":"cl`+g.of(lowers, 23)+`"}`))+"."+g.mixed(b64url, 22)+"';")
		add(fmt.Sprint("recaptcha site key ", i), `<div class="g-recaptcha" data-sitekey="6L`+g.mixed(b64url, 38)+`"></div>`)
		add(fmt.Sprint("google sheets id ", i), "SPREADSHEET_ID = '1"+g.mixed(b64url, 43)+"'")
		add(fmt.Sprint("google sheets id in prose ", i), "the sheet is 1"+g.mixed(b64url, 43)+", tab Q3")
		add(fmt.Sprint("hashed known_hosts ", i), "|1|"+base64.StdEncoding.EncodeToString(g.bytes(20))+"|"+base64.StdEncoding.EncodeToString(g.bytes(20))+" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+base64.StdEncoding.EncodeToString(g.bytes(32))[:43])
		add(fmt.Sprint("posthog project key ", i), "posthog.init('phc_"+g.mixed(alnum, 43)+"', {api_host: 'https://eu.posthog.com'})")
		add(fmt.Sprint("supabase publishable key ", i), "SUPABASE_PUBLISHABLE_KEY=sb_publishable_"+g.mixed(b64url, 31))
		add(fmt.Sprint("ethereum address ", i), "to: 0x"+g.of(hexes, 40))
		add(fmt.Sprint("ethereum tx hash ", i), "tx hash 0x"+g.of(hexes, 64))
		add(fmt.Sprint("docker container id ", i), "docker logs "+g.of(hexes, 64))
		add(fmt.Sprint("nostr public key ", i), "follow me: npub1"+g.of("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58))
		add(fmt.Sprint("youtube id ", i), "youtu.be/"+g.mixed(b64url, 11))
	}
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" + base64.StdEncoding.EncodeToString(g.bytes(400))
	add("png data uri", `<img src="data:image/png;base64,`+png+`">`)
	add("png thumbnail in json", `{"thumbnail": "`+png+`", "w": 64}`)
	jpg := "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL" + base64.StdEncoding.EncodeToString(g.bytes(300))
	add("jpeg thumbnail in json", `"thumb": "`+jpg+`"`)
	gif := "R0lGODlhAQABAIAAAP" + base64.StdEncoding.EncodeToString(g.bytes(120))
	add("gif data", "gif: "+gif)
	for i, j := range []string{
		`{"user_id": 1834, "plan": "pro", "features": ["search", "export"], "created": "2026-03-01"}`,
		`{"alg":"RS256","kid":"2024-key-rotation","typ":"JWT"}`,
		`{"name":"deja","version":"1.4.2","private":true}`,
		`{"query":{"match":{"title":"kafka consumer lag"}},"size":20}`,
	} {
		add(fmt.Sprint("base64 json ", i), "the cursor is "+base64.RawURLEncoding.EncodeToString([]byte(j)))
		add(fmt.Sprint("base64 json padded ", i), `"state": "`+base64.StdEncoding.EncodeToString([]byte(j))+`"`)
	}
	cert := strings.Join(wrap(base64.StdEncoding.EncodeToString(g.bytes(700))), "\n")
	for _, lbl := range []string{"CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE REQUEST", "PGP PUBLIC KEY BLOCK"} {
		add("pem "+lbl, "-----BEGIN "+lbl+"-----\n"+cert+"\n-----END "+lbl+"-----")
		add("pem "+lbl+" with trailing spaces", "-----BEGIN "+lbl+"----- \n"+strings.ReplaceAll(cert, "\n", " \n")+" \n-----END "+lbl+"----- ")
		add("pem "+lbl+" in JSON", `{"pem": "-----BEGIN `+lbl+`-----\n`+strings.ReplaceAll(cert, "\n", `\n`)+`\n-----END `+lbl+`-----\n"}`)
	}
	certData := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n" + cert + "\n-----END CERTIFICATE-----\n"))
	add("kubeconfig certificate-authority-data", "clusters:\n- cluster:\n    certificate-authority-data: "+certData+"\n    server: https://10.0.0.1:6443")
	add("kubeconfig client-certificate-data", "    client-certificate-data: "+certData)

	// Texts about passwords that hold none, in every language above.
	for _, t := range []string{
		"mot de passe oublié ? cliquez ici", "Passwort vergessen? Bitte zurücksetzen.", "la contraseña es incorrecta",
		"密码错误，请重试", "パスワードを忘れた場合", "пароль неверный, попробуйте снова", "esqueceu a senha?",
		"la password è scaduta", "비밀번호를 잊으셨나요?", "Das Passwort ist abgelaufen", "le mot de passe est trop court",
		"your password is too weak", "la contraseña es obligatoria", "密码是必填项", "пароль должен содержать цифры",
	} {
		add("prose "+t, t)
	}
	// Commands and code that name a password and pass none.
	for _, t := range []string{
		"sudo -S apt-get update < /dev/null", "mysql -u root -p shop", "keytool -list -keystore app.jks -storepass:env STOREPASS",
		"openssl rsa -in k.pem -passin env:KEY_PASS", "openssl rsa -in k.pem -passin file:/run/secrets/pass",
		"nmcli --ask dev wifi connect HomeNet", "htpasswd -c .htpasswd admin", "docker login ghcr.io",
		"curl -u admin https://jenkins.corp.dev", "echo $DB_PASSWORD | sudo -S true", "sqlplus / as sysdba",
		"sqlplus scott@orcl", "expdp system@orcl schemas=hr", "smtp.login(user, password)", "server.login(EMAIL, os.environ['SMTP_PASS'])",
		"requests.get(url, auth=(user, token))", "ssh.connect(host, username=user, password=pw)",
		"conn.simple_bind_s(dn, password)", "auth := smtp.PlainAuth(\"\", from, pass, host)", "req.SetBasicAuth(user, pass)",
		"db, err := sql.Open(\"mysql\", user+\":\"+pass+\"@tcp(db:3306)/shop\")", "dsn := fmt.Sprintf(\"%s:%s@tcp(%s)/%s\", u, p, h, d)",
		"jdbc:mysql://db:3306/shop?useSSL=false", "Server=db;Database=shop;Trusted_Connection=True;",
		"host=db port=5432 dbname=shop user=app sslmode=require", "redis://cache:6379/0", "CREATE USER app WITH PASSWORD NULL;",
		"ALTER USER app IDENTIFIED EXTERNALLY;", "machine github.com login bot", "node_modules/lodash@4.17.21",
		"src/components/Button@2x.png", "import x from '@scope/pkg/sub@1.0.0'", "git push origin feature/login@v2",
		"DB_PASSWORD_FILE=/run/secrets/db", "PASSWORD_MIN_LENGTH=12", "TOKEN_TTL=3600", "AUTH_PROVIDER=google",
		"SECRET_NAME=prod-db", "public_key: ssh-ed25519", "primary_key = 'order_id'", "cache_key = f'user:{uid}'",
		"max_tokens: 4096", "token_type: bearer", "auth: true", "credentials: include", "secrets: inherit",
		"SITE_KEY=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI", "password_hash = bcrypt(pw)", "auth_url: https://login.corp.dev/oauth",
		"key_id: 2024-rotation", "--password-stdin", "hash: 5f4dcc3b5aa765d61d8327deb882cf99",
		"the API key goes in the Authorization header", "set AES_KEY in the vault, not here",
		"pg_dump -U app -W shop", "Enter the password below, then login again.",
		"reset the password first\nlogin page: /auth", "nmcli connection show --active", "12:34:56:78:9a:bc",
	} {
		add("no secret: "+t, t)
	}
	return out
}
