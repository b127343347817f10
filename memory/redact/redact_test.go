package redact

import (
	"strings"
	"testing"
)

// Every token below is synthesised from a seeded random generator in the
// provider's published shape; none was ever issued. AKIAIOSFODNN7EXAMPLE is
// AWS's own documentation key.

// pemBody is random base64 wrapped at 64 columns, as PEM writes it.
const pemBody = "npcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRibIETcTFrO3xs+GHgt+O+X9nb4\n" +
	"fBb4qEDoHnPiqQ0VB/yA4KbjT+slRxRMuaMeIraAv4r4QHtw/Zq0QhfeEQQ8vrnp\n" +
	"gVbQwtgknWew84Q9ZlJCa3V5t8NgJ1xQUY/Pq/ko3vDyEvNFPxX0o4iJaWZntd2c\n" +
	"lBx/7wJ6jyD9odxVoonjllpGV3JJdajxn1m9pb57IIAjLPJTlND9YeLRlINdUSrI\n" +
	"U6lSL1p0qOUVsbnTQ6RSf/J00UVstnF/6nvU8URqAF3691nNLQ2jvwwyNfvMYrB5\n" +
	"2K+OYb3Yg6APZg225uX3NUF0RSrW+h2brn9Z+Oj69FYnh4TK3LFFqFPlWGxeT4FF"

func pem(label string) string {
	return "-----BEGIN " + label + "-----\n" + pemBody + "\n-----END " + label + "-----"
}

// secret is one secret in its usual surroundings: after Text, the kind's
// label is there, value is not, and every word in keep survives.
type secret struct {
	name, text, kind, value string
	keep                    []string
}

var secrets = []secret{
	{"aws access key in prose", "use the key AKIAIOSFODNN7EXAMPLE for the s3 upload",
		"aws-access-key", "AKIAIOSFODNN7EXAMPLE", []string{"use the key ", " for the s3 upload"}},
	{"aws temporary key", "AWS_ACCESS_KEY_ID=ASIA1975HPOLVISB25CT from sts",
		"aws-access-key", "ASIA1975HPOLVISB25CT", []string{"AWS_ACCESS_KEY_ID=", " from sts"}},
	{"aws secret in credentials file", "[default]\naws_secret_access_key = IJnlgolcAjq4nOtGqFhs/TitF9Cg2N+GN64YRD9Dn\nregion = eu-west-1",
		"aws-secret-key", "IJnlgolcAjq4nOtGqFhs", []string{"aws_secret_access_key = ", "region = eu-west-1"}},
	{"github classic token", "git push failed with ghp_vMuRQPGCCHTpUU9pENyYyEFW8yZcvv1aDmTe as the password",
		"github-token", "ghp_vMuRQPGCCHTpUU9pENyYyEFW8yZcvv1aDmTe", []string{"git push failed with ", " as the password"}},
	{"github oauth token", "gh auth status shows gho_ewbnE5yUY6In0S2OX1Q3HqpdVV9RJnyJ8MZN",
		"github-token", "gho_ewbnE5yUY6In0S2OX1Q3HqpdVV9RJnyJ8MZN", []string{"gh auth status shows "}},
	{"github fine-grained token", "GH_TOKEN=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 gh pr list",
		"github-token", "SeF3SyYXFRYCbsiqYULtayIcvUgMAeTkovXjVOlAHKzEIhm8Gbrila69vpM", []string{"GH_TOKEN=", " gh pr list"}},
	{"gitlab personal token", "clone with glpat-CnEjmsjTk6guymgOKsQu please",
		"gitlab-token", "glpat-CnEjmsjTk6guymgOKsQu", []string{"clone with ", " please"}},
	{"slack bot token", `client = WebClient(token=os.environ.get("SLACK", "xoxb-370226398723-5910913477924-92BT4AOywTI734BN7jzWqTdE"))`,
		"slack-token", "92BT4AOywTI734BN7jzWqTdE", []string{"WebClient(token=os.environ.get(\"SLACK\", "}},
	{"slack webhook", "post to https://hooks.slack.com/services/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 when the build fails",
		"slack-webhook", "U8k0lKEOiJSTZJ6mcNM0mM3S", []string{"post to https://hooks.slack.com/services/", " when the build fails"}},
	{"stripe live secret key", "stripe.api_key = sk_live_xwDMgfBHgqK2kbBBsjurjsUt # rotate me",
		"stripe-key", "sk_live_xwDMgfBHgqK2kbBBsjurjsUt", []string{"stripe.api_key = ", " # rotate me"}},
	{"stripe restricted test key", "the restricted key rk_test_yOpHBCu5ILi0GAtbfFEGXspw only reads charges",
		"stripe-key", "rk_test_yOpHBCu5ILi0GAtbfFEGXspw", []string{"the restricted key ", " only reads charges"}},
	{"openai project key in shell", "export OPENAI_API_KEY=sk-proj-kvLwDgXHeueFnkxbz5hNJwToQl8O6APHwG7LDEZf_JH00iUprq7w7uSze0frU-HsnBccFAwfOen0ARVLMpeEJNFR96AzXTnd6KNQ9tAjsfDuvRksrc7IT3cKqbT3BlbkFJeze8EY5ArS8RcKiFVBa8KgfvJ0HkwF\naider --model gpt-4o",
		"openai-key", "T3BlbkFJeze8EY5ArS8RcKiFVBa8KgfvJ0HkwF", []string{"export OPENAI_API_KEY=", "aider --model gpt-4o"}},
	{"openai legacy key", "aider --openai-api-key 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 --no-git",
		"openai-key", "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", []string{"aider --openai-api-key ", " --no-git"}},
	{"deepseek key in openai shape", "DEEPSEEK_API_KEY=sk-1e8472d96b46edb48de271d577039181 aider --deepseek",
		"openai-key", "1e8472d96b46edb48de271d577039181", []string{"DEEPSEEK_API_KEY=", " aider --deepseek"}},
	{"anthropic key", "set ANTHROPIC_API_KEY to sk-ant-api03-1qKwrBN58kx5J4aB16B1Cc9HVfvOZIji97cUzIQt-EHITErAO2mDSbo7Xhe8lvNQwE1hmpXACf6Fvsagc_DoUjLauyE4-hg8CnKhGAA before running",
		"anthropic-key", "1qKwrBN58kx5J4aB16B1Cc9HVfvOZIji97cUzIQt", []string{"set ANTHROPIC_API_KEY to ", " before running"}},
	{"openrouter key", "OPENROUTER_API_KEY=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",
		"openrouter-key", "a557f16507bf9d2d9d7fd3c49f452996d80897c6fa4d1b6d898b4fd908886288", []string{"OPENROUTER_API_KEY="}},
	{"google api key", "gemini failed: key AIzaJChxe1Dpw8bUVwwLcXr4zGXlqhSqHqqfrzl is not valid",
		"google-api-key", "AIzaJChxe1Dpw8bUVwwLcXr4zGXlqhSqHqqfrzl", []string{"gemini failed: key ", " is not valid"}},
	{"huggingface token", "huggingface-cli login --token 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",
		"huggingface-token", "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", []string{"huggingface-cli login --token "}},
	{"npm token in npmrc", "//registry.npmjs.org/:_authToken=npm_SEUjLBo9UVYiur5rP1VRUF3AqZnSQFVXZqlX",
		"npm-token", "npm_SEUjLBo9UVYiur5rP1VRUF3AqZnSQFVXZqlX", []string{"//registry.npmjs.org/:_authToken="}},
	{"pypi token", "twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcz7k6uZjZDS6zmtogHmHGLVwIiSyC24gWOJVSdJrj6GC44wzm1yXSitlKOtf3 dist/*",
		"pypi-token", "z7k6uZjZDS6zmtogHmHGLVwIiSyC24gWOJVSdJrj6GC44wzm1yXSitlKOtf3", []string{"twine upload -u __token__ -p ", " dist/*"}},
	{"sendgrid key", "sg = SendGridAPIClient('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')",
		"sendgrid-key", "1SKbYKxo4oIZoRGTdosCOMRNhDqbL9NEq1RxoWK8Qh9", []string{"sg = SendGridAPIClient('"}},
	{"twilio api key", "Client(SK1ac324e8ec1a61d1dd2277166a1c5220, secret, account_sid)",
		"twilio-key", "SK1ac324e8ec1a61d1dd2277166a1c5220", []string{"Client(", ", secret, account_sid)"}},
	{"groq key", "GROQ_API_KEY: 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",
		"groq-key", "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", []string{"GROQ_API_KEY: "}},
	{"xai key", "XAI_API_KEY=xai-zymMlopiWfqUyHRSIf8NFmAUNLnY5Yx0y3RnjDQl2Kvf8THRXfEuzcrJaBnx7IfDH5mMDdwin86TkVYC aider --model xai/grok-4",
		"xai-key", "xai-zymMlopiWfqUyHRSIf8NFmAUNLnY5Yx0y3RnjDQl2Kvf8THRXfEuzcrJaBnx7IfDH5mMDdwin86TkVYC", []string{"XAI_API_KEY=", " aider --model xai/grok-4"}},
	{"replicate token", "replicate.Client(api_token='r8_M7l8GQlchbkER0Af7BOfjtNayviHzm5YdOnCq')",
		"replicate-token", "r8_M7l8GQlchbkER0Af7BOfjtNayviHzm5YdOnCq", []string{"replicate.Client(api_token='", "')"}},
	{"digitalocean token", "doctl auth init -t dop_v1_7ace9e5517adb3d8963ed872bb820dcc460386411d1323bbf3ed674d401514cc",
		"digitalocean-token", "7ace9e5517adb3d8963ed872bb820dcc460386411d1323bbf3ed674d401514cc", []string{"doctl auth init -t "}},
	{"jwt in a cookie", "session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QgVXNlciIsImlhdCI6MTUxNjIzOTAyMn0.qRJeCE4kBIBkxCJpFHSAV6bBUr8pGT0ohm3URdh6L-9; Path=/",
		"jwt", "qRJeCE4kBIBkxCJpFHSAV6bBUr8pGT0ohm3URdh6L-9", []string{"session=", "; Path=/"}},
	{"bearer header in curl", `curl -H "Authorization: Bearer FfI8d67R64dho0PxJ1D5OJHIrRUfNroOsnAUKrpO" https://api.example.com/v1/models`,
		"bearer-token", "FfI8d67R64dho0PxJ1D5OJHIrRUfNroOsnAUKrpO", []string{`curl -H "Authorization: Bearer `, `" https://api.example.com/v1/models`}},
	{"basic auth header", "Authorization: Basic ZGVwbG95OlRmUUlKY3pLMUxJa0NNT0lLcQ== was rejected",
		"basic-auth", "ZGVwbG95OlRmUUlKY3pLMUxJa0NNT0lLcQ==", []string{"Authorization: Basic ", " was rejected"}},
	{"pem rsa private key", "my deploy key:\n" + pem("RSA PRIVATE KEY") + "\nwhy does ssh reject it?",
		"private-key", "npcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRib", []string{"my deploy key:\n", "\nwhy does ssh reject it?"}},
	{"pem ec private key", pem("EC PRIVATE KEY") + "\nis in certs/server.key",
		"private-key", "U6lSL1p0qOUVsbnTQ6RSf", []string{"is in certs/server.key"}},
	{"openssh private key", "cat ~/.ssh/id_ed25519\n" + pem("OPENSSH PRIVATE KEY"),
		"private-key", "2K+OYb3Yg6APZg225uX3NUF0RSrW", []string{"cat ~/.ssh/id_ed25519\n"}},
	{"pgp private key block", "gpg --export-secret-keys prints\n" + "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + pemBody + "\n=Xk2a\n-----END PGP PRIVATE KEY BLOCK-----\ndone",
		"private-key", "lBx/7wJ6jyD9odxVoonjllpGV3JJdajxn1m9pb57", []string{"gpg --export-secret-keys prints\n", "\ndone"}},
	{"pkcs8 key in service account json", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nfBb4qEDoHnPiqQ0VB/yA4KbjT+slRxRMuaMeIraAv4r4QHtw/Zq0QhfeEQQ8vrnp\n-----END PRIVATE KEY-----\n", "client_email": "bot@proj.iam.gserviceaccount.com"}`,
		"private-key", "fBb4qEDoHnPiqQ0VB", []string{`{"type": "service_account", "private_key": "`, `"client_email": "bot@proj.iam.gserviceaccount.com"}`}},
	{"private key cut short", "here is the start of it\n-----BEGIN RSA PRIVATE KEY-----\nnpcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRibIETcTFrO3xs+GHgt+O+X9nb4\nfBb4qEDoHnPiqQ0VB/yA4KbjT+slRxRMuaMeIraAv4r4QHtw/Zq0QhfeEQQ8vrnp\n\n(the rest is on the server)",
		"private-key", "fBb4qEDoHnPiqQ0VB", []string{"here is the start of it\n", "(the rest is on the server)"}},
	{"postgres url", "DATABASE_URL=postgres://alice:Zq8wxLm2vR@db:5432/app?sslmode=disable",
		"url-credentials", "Zq8wxLm2vR", []string{"postgres://alice:", "@db:5432/app?sslmode=disable"}},
	{"mysql url", `engine = create_engine("mysql+pymysql://app_rw:N4k7hTq9Lp@10.0.0.5/orders")`,
		"url-credentials", "N4k7hTq9Lp", []string{"mysql+pymysql://app_rw:", "@10.0.0.5/orders"}},
	{"redis url with no user", "REDIS_URL=redis://:tUibbuYEegLPZpf8@cache:6379/0",
		"url-credentials", "tUibbuYEegLPZpf8", []string{"redis://:", "@cache:6379/0"}},
	{"amqp url", "broker_url = 'amqp://celery:vDf5DS4HnMtx3VvEs4p9@rabbit:5672//'",
		"url-credentials", "vDf5DS4HnMtx3VvEs4p9", []string{"amqp://celery:", "@rabbit:5672//"}},
	{"https url with token as password", "git remote set-url origin https://deploy:Z8vuddHRB6Hq@git.internal.dev/team/repo.git",
		"url-credentials", "Z8vuddHRB6Hq", []string{"https://deploy:", "@git.internal.dev/team/repo.git"}},
	{"env export of a shapeless key", "export MISTRAL_API_KEY=6XyRWi6umL4aLfBDf2fwSeT8T0KUpoE2\naider --model mistral/mistral-large",
		"assignment", "6XyRWi6umL4aLfBDf2fwSeT8T0KUpoE2", []string{"export MISTRAL_API_KEY=", "aider --model mistral/mistral-large"}},
	{"dotenv password", "DB_HOST=localhost\nDB_PASSWORD=correcthorse\nDB_PORT=5432",
		"assignment", "correcthorse", []string{"DB_HOST=localhost\nDB_PASSWORD=", "\nDB_PORT=5432"}},
	{"json password", `{"username": "admin", "password": "Tr0ub4dor&3", "port": 8080}`,
		"assignment", "Tr0ub4dor&3", []string{`{"username": "admin", "password": "`, `", "port": 8080}`}},
	{"yaml password", "database:\n  user: app\n  password: s3cretPassw0rd!\n  host: db",
		"assignment", "s3cretPassw0rd!", []string{"  password: ", "\n  host: db"}},
	{"python client secret", `client_secret = "vDf5DS4HnMtx3VvEs4p9"  # from the console`,
		"assignment", "vDf5DS4HnMtx3VvEs4p9", []string{`client_secret = "`, `"  # from the console`}},
	{"go struct literal", "cfg := Config{User: \"svc\", Token: \"Z8vuddHRB6HqtUibbuYE\"}",
		"assignment", "Z8vuddHRB6HqtUibbuYE", []string{"cfg := Config{User: \"svc\", Token: \"", "\"}"}},
	{"python annotation with default", "    api_key: str = \"tUibbuYEegLPZpf8vDf5\"\n    model: str",
		"assignment", "tUibbuYEegLPZpf8vDf5", []string{"    api_key: str = \"", "\n    model: str"}},
	{"command-line password flag", "mysql --user root --password Hq8vR2pLm5 orders < dump.sql",
		"assignment", "Hq8vR2pLm5", []string{"mysql --user root --password ", " orders < dump.sql"}},
	{"toml secret", "[server]\nsecret = 'k9Lm2Qz7Vx4Pt1Ws'\nport = 8000",
		"assignment", "k9Lm2Qz7Vx4Pt1Ws", []string{"secret = '", "'\nport = 8000"}},
	{"api key in a query string", "GET https://api.weather.example/v1/forecast?city=Paris&api_key=f83ad91c6b7e4d20&units=metric",
		"assignment", "f83ad91c6b7e4d20", []string{"forecast?city=Paris&api_key=", "&units=metric"}},
	{"api key header", `requests.get(url, headers={"X-API-Key": "TxfGuc97VE8s7xPnZY4F"})`,
		"assignment", "TxfGuc97VE8s7xPnZY4F", []string{`headers={"X-API-Key": "`, `"})`}},
	{"kubernetes secret holding an env file", "kind: Secret\ndata:\n  app.env: REJfVVNFUj1hcHAKREJfUEFTU1dPUkQ9WnE4d3hMbTJ2Ugo=\n",
		"high-entropy", "REJfVVNFUj1hcHAKREJfUEFTU1dPUkQ9WnE4d3hMbTJ2Ugo=", []string{"kind: Secret\ndata:\n  app.env: "}},
	{"high-entropy token in prose", "the webhook signs with TxfGuc97VE8s7xPnZY4FDXtAiEfd5qhlCEKd7WsQ so keep it safe",
		"high-entropy", "TxfGuc97VE8s7xPnZY4FDXtAiEfd5qhlCEKd7WsQ", []string{"the webhook signs with ", " so keep it safe"}},
	{"high-entropy base64 with padding", "key material: wRCj773DVTc2zpndYXdv+QkFXN4hZYuD/gpCFO8aojYN6= (do not share)",
		"high-entropy", "wRCj773DVTc2zpndYXdv+QkFXN4hZYuD/gpCFO8aojYN6=", []string{"key material: [redacted:high-entropy] (do not share)"}},
}

func TestTextRedactsSecrets(t *testing.T) {
	for _, c := range secrets {
		t.Run(c.name, func(t *testing.T) {
			got, n := Text(c.text)
			if n != 1 {
				t.Errorf("Text made %d redactions, want 1:\n%s", n, got)
			}
			if !strings.Contains(got, "[redacted:"+c.kind+"]") {
				t.Errorf("no [redacted:%s] in\n%s", c.kind, got)
			}
			if strings.Contains(got, c.value) {
				t.Errorf("secret %q survived in\n%s", c.value, got)
			}
			for _, k := range c.keep {
				if !strings.Contains(got, k) {
					t.Errorf("surrounding text %q lost in\n%s", k, got)
				}
			}
		})
	}
}

// A second pass over redacted text finds nothing: labels are not secrets,
// and re-indexing a session does not inflate the count.
func TestTextIsIdempotent(t *testing.T) {
	for _, c := range secrets {
		once, _ := Text(c.text)
		if twice, n := Text(once); n != 0 || twice != once {
			t.Errorf("%s: second pass made %d redactions:\n%s\n->\n%s", c.name, n, once, twice)
		}
	}
}

func TestTextCountsEachSecret(t *testing.T) {
	in := "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n" +
		"DB_PASSWORD=correcthorse\n" +
		"DATABASE_URL=postgres://alice:Zq8wxLm2vR@db:5432/app\n" +
		"and a plain sentence about commit 3f9ad6b"
	got, n := Text(in)
	if n != 3 {
		t.Fatalf("Text made %d redactions, want 3:\n%s", n, got)
	}
	if !strings.HasSuffix(got, "and a plain sentence about commit 3f9ad6b") {
		t.Errorf("prose changed:\n%s", got)
	}
}

// lookalikes are texts with something secret-shaped in them that is not a
// secret; Text must leave them exactly as they are.
var lookalikes = []struct{ name, text string }{
	{"short commit hash", "fixed in 3f9ad6b, see the log"},
	{"full commit hash", "git checkout 6da9a43058a5d1b9f3353153921fb04d8e1c7a90"},
	{"sha-256 hex digest", "sha256sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  aider.tar.gz"},
	{"uuid", "session 0b3d6c7e-58f2-4c1a-9d8e-2f6a1b7c9e04 resumed"},
	{"upper-case guid", "ProjectGuid = {A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D}"},
	{"relative file path", "edit internal/db/query.go and memory/redact/assignment.go"},
	{"site-packages path", "File \"/usr/local/lib/python3.11/site-packages/litellm/llms/anthropic/chat/handler.py\", line 42"},
	{"macOS temp path", "/private/var/folders/49/kxrdwwbx0h9bchx99397477c0000gn/T/tmp0c6hjme1/test_read_only"},
	{"cache path with a random segment", "~/.cache/pre-commit/repoXk9mQ2vL7pR4tW8zN3bJ6hF1cY5dG0aS/setup.py"},
	{"url without credentials", "see https://github.com/paul-gauthier/aider/issues/1063#issuecomment-2229410235"},
	{"url with a random document id", "https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit#gid=0"},
	{"url with a random playlist id", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG"},
	{"base64 of ordinary text", "echo SGVsbG8gd29ybGQsIHRoaXMgaXMgYW4gb3JkaW5hcnkgbWVzc2FnZSBhYm91dCB0ZXN0cw== | base64 -d"},
	{"package versions", "litellm==1.44.7 and tokenizers==0.19.1, pip install 'aider-chat>=0.50.0'"},
	{"requirements pin of a package named token", "token==0.7.0"},
	{"go pseudo-version", "require golang.org/x/exp v0.0.0-20231121144256-b99613f794b6 // indirect"},
	{"go.sum hash", "github.com/spf13/cobra v1.8.0 h1:7aJaZx1B85qltLMc546zn58BqkWIDI3LX8jf1mQzEvc="},
	{"long camelCase identifier", "rename getUserByIdFromDatabaseV2Async to loadUser"},
	{"css module class names", `<div class="CodeScripts_hero-api-code-snippet__RFs5e Hero_home-subtitle__P8khF">`},
	{"npm integrity string", `"integrity": "sha512-Ynx4DDTGE0oXY7BW9jqFpJq9bLsJ8uI0UGVn6Ly7f2CLVWGmaaCIqW7Ntw4ZAYrkZr6VD4Yk8PMXuBVuY9WzqA=="`},
	{"css colours", "color: #1a2B3c; background: #FFF; border: 1px solid rgba(0,0,0,.1)"},
	{"placeholder in angle brackets", "password=<your password>"},
	{"placeholder dots", "api_key=..."},
	{"placeholder xxx", "token=xxx"},
	{"placeholder name", "export OPENAI_API_KEY=YOUR_API_KEY"},
	{"aider's scrubbed key", "aider --openai-api-key ...3lCm --model gpt-4o"},
	{"aider's scrubbed key in settings", "api_key: ...CQAA"},
	{"env example in English", "API_KEY=your-key-goes-here"},
	{"env example in French", "API_KEY=votre-clé-va-ici"},
	{"keyword argument passing a variable", "Posthog(project_api_key=posthog_project_api_key, host=posthog_host)"},
	{"token computed by a call", "token = self._issue_auth_token(user_id, ttl=3600)"},
	{"token limits", "max_tokens=4096, max_input_tokens=128000"},
	{"type annotation", "def login(user: str, password: str) -> bool:"},
	{"password from the environment", `password = os.environ["DB_PASSWORD"]`},
	{"env reference", "password=${DB_PASSWORD} token=$GITHUB_TOKEN"},
	{"ui label", `{"password": "Mot de passe", "token": "Jeton d'accès"}`},
	{"working directory", "PWD=/home/me/projects/deja OLDPWD=/home/me"},
	{"ssh public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb9kQvJx2mR7tLwYp4sZc8nHq3Vd6Fe1Uo0Ai5Kj2Lm me@laptop"},
	{"openrouter generation id", "ModelResponse(id='gen-I0EN1P6MHfJzr22C8VCPl8uDWwtk', choices=[])"},
	{"clerk user id", "'user_id': 'user_2bjiyGLMYbkFZIJPiSgrX4beinK'"},
	{"stripe publishable key", "Stripe('pk_live_51HxYzAbCdEfGhIjKlMnOpQrStUv')"},
	{"documentation connection string", "postgres://user:password@localhost:5432/mydb"},
	{"default broker credentials", "amqp://guest:guest@localhost:5672//"},
	{"bearer as a word", "send a Bearer token in the Authorization header"},
	{"basic as a word", "Basic authentication is enabled by default"},
	{"migration name", "applied migration 20220404123456_InitialCreate"},
	{"repeating test pattern", `assert not is_random("Xy7Xy7Xy7Xy7Xy7Xy7Xy7Xy7Xy7")`},
	{"base64 alphabet", `const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"`},
	{"base64 of mostly zeros", `"weights": "AAAAAAAAgD8AAAAAAAAAAAAAgD8AAAAAAAAAAAAAgD8="`},
	{"inline image escape", "\x1b]1337;File=inline=1;size=92534;height=29:npcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRibIETcTFrO3xs+GHgt+O+X9nb4fBb4qEDoHnPiqQ0VB/yA4KbjT+slRxRMuaMeIraAv4r4QHtw/Zq0QhfeEQQ8vrnpgVbQwtgknWew84Q9ZlJCa3V5t8NgJ1xQUY/Pq/ko3vDyEvNFPxX0o4iJaWZntd2clBx/7wJ6jyD9odxVoonjllpGV3JJdajxn1m9pb57IIAjLPJTlND9YeLRlINdUSrIU6lSL1p0qOUVsbnTQ6RSf/J00UVstnF/6nvU8URqAF3691nNLQ2jvwwyNfvMYrB5\a"},
	{"ethereum address", "send to 0xF7A4BCa9E14b2DbdA8597cdeFf3f26DfC165a482"},
	{"container digest", "image: ghcr.io/acme/app@sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"},
	{"aws arn", "arn:aws:iam::123456789012:role/service-role/LambdaExecutionRole20240101"},
	{"private key format mentioned in prose", "the file must start with -----BEGIN RSA PRIVATE KEY----- or ssh refuses it"},
	{"certificate", "-----BEGIN CERTIFICATE-----\n" + pemBody + "\n-----END CERTIFICATE-----"},
	{"data uri", `<img src="data:image/webp;base64,UklGRjIAAABXRUJQVlA4ICYAAACyAgCdASoCAAEALmk0mk0iIiIiIgBoSygABc6zbAAA/v56QAAAAA==">`},
	{"data uri of random bytes", `background: url(data:font/woff2;base64,npcVY1Edik6zrVrtbgbr0iQvT3586TEH9A8sZRibIETcTFrO3xs+GHgt+O+X9nb4);`},
	{"aider token report", "Tokens: 2.3k sent, 1.2k received. Cost: $0.01 message, $0.05 session."},
	{"scikit-learn name", "pip install sk-learn-compatible-estimators2024"},
	{"hugging face identifier", "from hf_hub_utils import hf_HubDownloadConfigurationManagerV2"},
	{"generated enum value", "Enum11107_ENUM_VALUE11302 Enum11107 = 54"},
	{"generated helper name", "func PostIncBitFieldPtr16Int32(p uintptr, d int32) int32"},
	{"instruction form", "case VCVTSD2SI_GPR32i32_XMMf64_AVX512:"},
	{"generated name with a hash", "var fileDescriptor_a18a9e6d5cf09c5a = []byte{"},
	{"object id starting like a key", "run id task-8fKq2LmZx7Vb3Nw5Rt1YpQ4s finished"},
	{"yaml vault tag", "db:\n  password: !vault |\n    $ANSIBLE_VAULT;1.1;AES256"},
	{"dummy key for a local server", `client = OpenAI(base_url="http://localhost:11434/v1", api_key="ollama")`},
	{"system path constant", `const _PATH_PASSWD = "/etc/passwd"`},
	{"cgo constant", "NL80211_ATTR_SAE_PASSWORD = C.NL80211_ATTR_SAE_PASSWORD"},
	{"ioctl number", "SIOCGETTOKEN = 0xc0506617"},
	{"key file path", "SSH_PRIVATE_KEY=~/.ssh/id_ed25519"},
	{"token limit", "max_token=128000"},
	{"typescript field types", "interface Login { username: string; password: string }"},
	{"documentation json", `{"username": "username", "password": "password"}`},
	{"swagger example body", `{"username": "string", "password": "string"}`},
	{"env flag ending in pass", "BYPASS=staging2 make deploy"},
	{"bearer before a long word", "uses Bearer authentication_middleware by default"},
	{"basic before a word of base64 length", "see Basic settings below"},
	{"user name as password", "postgres://postgres:postgres@localhost:5432/postgres"},
	{"default password in a url", "mongodb://root:pass@localhost:27017"},
}

func TestTextLeavesLookalikes(t *testing.T) {
	for _, c := range lookalikes {
		t.Run(c.name, func(t *testing.T) {
			if got, n := Text(c.text); n != 0 || got != c.text {
				t.Errorf("Text made %d redactions:\n%s\n->\n%s", n, c.text, got)
			}
		})
	}
}

// The definition of done: at least 30 secret shapes redacted and 30
// look-alikes left alone; the README quotes these numbers.
func TestCoverage(t *testing.T) {
	kinds := map[string]bool{}
	for _, c := range secrets {
		kinds[c.kind] = true
	}
	t.Logf("%d secrets of %d kinds, %d look-alikes", len(secrets), len(kinds), len(lookalikes))
	if len(secrets) < 30 || len(lookalikes) < 30 {
		t.Errorf("%d secrets and %d look-alikes, want at least 30 of each", len(secrets), len(lookalikes))
	}
}
