package redact

import (
	"strings"
	"sync"

	"github.com/deja-dev/deja/internal/lazyre"
)

// A shape is a secret recognisable on its own: a provider's published token
// format, a JWT, a private key block, an Authorization header's credential.
// Literals are the prefixes every match starts with; the anchored regexp is
// tried only at a word that starts with one of them.
type shape struct {
	kind     string
	literals []string
	re       *lazyre.Regexp
	// near, when set, is a piece every match holds within its first
	// bytes; a word without it is not tried against re. Tokens that start
	// with a digit would otherwise run the regexp at every number.
	near string
	// valid, when set, rejects matches that fit the pattern but not a token,
	// such as "sk-learn-compatible-estimators".
	valid func(match string) bool
}

// shapes is ordered so that a narrower prefix claims a token before a wider
// one sees it: sk-ant- and sk-or- before sk-.
var shapes = []shape{
	{kind: "private-key", literals: []string{"-----BEGIN "}, re: privateKeyBlock, valid: hasKeyMaterial},
	{kind: "jwt", literals: []string{"eyJ"},
		re: anchor(`eyJ[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`)},
	{kind: "aws-access-key", literals: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re: anchor(`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`)},
	{kind: "github-token", literals: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: anchor(`(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b`)},
	{kind: "gitlab-token", literals: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-"},
		re: anchor(`gl(?:pat|dt|rt|ptt|cbt|ft|soat)-[A-Za-z0-9_-]{20,}`)},
	{kind: "slack-token", literals: []string{"xox", "xapp-"},
		re: anchor(`(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})`)},
	// The webhook's path is the secret; hooks.slack.com stays searchable.
	{kind: "slack-webhook", literals: []string{"hooks.slack.com/services/"},
		re: anchor(`hooks\.slack\.com/services/(T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+)`)},
	// Publishable keys (pk_live_, pk_test_) are public by design and stay.
	{kind: "stripe-key", literals: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		re: anchor(`(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})\b`)},
	{kind: "anthropic-key", literals: []string{"sk-ant-"},
		re: anchor(`sk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{20,}`)},
	{kind: "openrouter-key", literals: []string{"sk-or-"},
		re: anchor(`sk-or-v\d-[0-9a-f]{32,}\b`)},
	// OpenAI's shape is shared by OpenAI-compatible providers (DeepSeek's
	// sk- plus 32 hex); they are labelled openai-key too.
	{kind: "openai-key", literals: []string{"sk-"},
		re:    anchor(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
		valid: openAIBody},
	{kind: "google-api-key", literals: []string{"AIza"},
		re: anchor(`AIza[0-9A-Za-z_-]{35}`)},
	{kind: "huggingface-token", literals: []string{"hf_"},
		re:    anchor(`hf_[A-Za-z0-9]{30,}\b`),
		valid: notWords},
	{kind: "npm-token", literals: []string{"npm_"},
		re: anchor(`npm_[A-Za-z0-9]{36}\b`)},
	{kind: "pypi-token", literals: []string{"pypi-AgE"},
		re: anchor(`pypi-AgE[A-Za-z0-9_-]{50,}`)},
	{kind: "sendgrid-key", literals: []string{"SG."},
		re: anchor(`SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`)},
	{kind: "twilio-key", literals: []string{"SK"},
		re: anchor(`SK[0-9a-fA-F]{32}\b`)},
	{kind: "groq-key", literals: []string{"gsk_"},
		re: anchor(`gsk_[A-Za-z0-9]{48,}\b`)},
	{kind: "xai-key", literals: []string{"xai-"},
		re: anchor(`xai-[A-Za-z0-9]{70,}\b`)},
	{kind: "replicate-token", literals: []string{"r8_"},
		re: anchor(`r8_[A-Za-z0-9]{37}\b`)},
	{kind: "digitalocean-token", literals: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		re: anchor(`do[por]_v1_[a-f0-9]{64}\b`)},
	{kind: "mailgun-key", literals: []string{"key-"},
		re: anchor(`key-[0-9a-f]{32}\b`)},
	{kind: "docker-token", literals: []string{"dckr_pat_", "dckr_oat_"},
		re: anchor(`dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`)},
	{kind: "age-secret-key", literals: []string{"AGE-SECRET-KEY-1"},
		re: anchor(`AGE-SECRET-KEY-1[0-9A-Z]{50,}`)},
	// A Telegram bot token is the bot's numeric ID, a colon and 35
	// characters; in an API URL it follows "bot", which stays.
	{kind: "telegram-token", literals: []string{"bot", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		re: anchor(`(?:bot)?(\d{6,12}:AA[A-Za-z0-9_-]{30,})`), near: ":AA"},
	// Twilio's auth token is 32 hex with no prefix of its own; it is known
	// by the account SID written before it (curl -u AC…:…, Client("AC…",
	// "…")). The SID names the account and stays.
	{kind: "twilio-auth-token", literals: []string{"AC"},
		re: anchor(`AC[0-9a-f]{32}["']?[ \t]*[:,][ \t]*["']?([0-9a-f]{32})\b`)},
	{kind: "shopify-token", literals: []string{"shpat_", "shpss_", "shpca_", "shppa_"},
		re: anchor(`shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b`)},
	{kind: "linear-key", literals: []string{"lin_api_", "lin_oauth_"},
		re: anchor(`lin_(?:api|oauth)_[A-Za-z0-9]{32,}\b`)},
	{kind: "notion-token", literals: []string{"ntn_", "secret_"},
		re: anchor(`(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b`), valid: mixedClasses},
	{kind: "postman-key", literals: []string{"PMAK-"},
		re: anchor(`PMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`)},
	{kind: "doppler-token", literals: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct."},
		re: anchor(`dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}\b`)},
	{kind: "vault-token", literals: []string{"hvs.", "hvb.", "hvr."},
		re: anchor(`hv[sbr]\.[A-Za-z0-9_-]{24,}`)},
	{kind: "terraform-token", literals: []string{"atlasv1."},
		re: anchor(`atlasv1\.[A-Za-z0-9_=-]{60,}`)},
	{kind: "databricks-token", literals: []string{"dapi"},
		re: anchor(`dapi[0-9a-f]{32}(?:-\d)?\b`)},
	{kind: "newrelic-key", literals: []string{"NRAK-", "NRJS-", "NRII-"},
		re: anchor(`NR(?:AK|JS|II)-[A-Z0-9]{27}\b`)},
	{kind: "sentry-token", literals: []string{"sntrys_", "sntryu_"},
		re: anchor(`(?:sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[0-9a-f]{64}\b)`)},
	{kind: "grafana-token", literals: []string{"glsa_", "glc_"},
		re: anchor(`(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`)},
	{kind: "figma-token", literals: []string{"figd_"},
		re: anchor(`figd_[A-Za-z0-9_-]{40,}`)},
	{kind: "airtable-token", literals: []string{"pat"},
		re: anchor(`pat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b`)},
	{kind: "supabase-token", literals: []string{"sbp_"},
		re: anchor(`sbp_[0-9a-f]{40}\b`)},
	{kind: "planetscale-token", literals: []string{"pscale_tkn_", "pscale_pw_", "pscale_oauth_"},
		re: anchor(`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}`)},
	{kind: "pulumi-token", literals: []string{"pul-"},
		re: anchor(`pul-[0-9a-f]{40}\b`)},
	{kind: "fly-token", literals: []string{"fo1_", "FlyV1 fm2_"},
		re: anchor(`(?:fo1_[A-Za-z0-9_-]{39,}|FlyV1 fm2_[A-Za-z0-9+/=_,-]{40,})`)},
	{kind: "perplexity-key", literals: []string{"pplx-"},
		re: anchor(`pplx-[A-Za-z0-9]{40,}\b`)},
	{kind: "langsmith-key", literals: []string{"lsv2_pt_", "lsv2_sk_"},
		re: anchor(`lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b`)},
	{kind: "pinecone-key", literals: []string{"pcsk_"},
		re: anchor(`pcsk_[A-Za-z0-9]{5,}_[A-Za-z0-9]{40,}\b`)},
	{kind: "tavily-key", literals: []string{"tvly-"},
		re: anchor(`tvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}\b`)},
	{kind: "rubygems-key", literals: []string{"rubygems_"},
		re: anchor(`rubygems_[0-9a-f]{48}\b`)},
	{kind: "square-token", literals: []string{"sq0atp-", "sq0csp-", "EAAA"},
		re: anchor(`(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})\b`)},
	{kind: "brevo-key", literals: []string{"xkeysib-", "xsmtpsib-"},
		re: anchor(`x(?:keysib|smtpsib)-[0-9a-f]{64}-[A-Za-z0-9]{16}\b`)},
	{kind: "resend-key", literals: []string{"re_"},
		re: anchor(`re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b`), valid: mixedClasses},
	{kind: "alibaba-key", literals: []string{"LTAI"},
		re: anchor(`LTAI[A-Za-z0-9]{12,20}\b`), valid: mixedClasses},
	{kind: "discord-webhook", literals: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
		re: anchor(`discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{60,})`)},
	// Prefixes of the field's rule set (gitleaks' and the providers' own
	// docs). The bodies have a floor and no cap: OAuth access tokens
	// (ya29.) and Dropbox's sl.u. run past a thousand characters.
	{kind: "fireworks-key", literals: []string{"fw_"}, re: anchor(`fw_[A-Za-z0-9]{20,}\b`), valid: mixedClasses},
	{kind: "neon-key", literals: []string{"napi_"}, re: anchor(`napi_[a-z0-9]{60,}\b`)},
	{kind: "netlify-token", literals: []string{"nfp_"}, re: anchor(`nfp_[A-Za-z0-9]{36,}\b`)},
	{kind: "render-key", literals: []string{"rnd_"}, re: anchor(`rnd_[A-Za-z0-9]{28,}\b`), valid: mixedClasses},
	{kind: "posthog-personal-key", literals: []string{"phx_"}, re: anchor(`phx_[A-Za-z0-9]{40,}\b`)},
	{kind: "sonarqube-token", literals: []string{"squ_", "sqp_", "sqa_"}, re: anchor(`sq[upa]_[0-9a-fA-F]{40,}\b`)},
	{kind: "supabase-secret-key", literals: []string{"sb_secret_"}, re: anchor(`sb_secret_[A-Za-z0-9_-]{24,}`)},
	{kind: "tailscale-key", literals: []string{"tskey-"}, re: anchor(`tskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9-]{20,}`)},
	{kind: "slack-token", literals: []string{"xoxe"}, re: anchor(`xoxe(?:-\d|\.xox[a-z]-\d)-[A-Za-z0-9-]{20,}`)},
	{kind: "1password-token", literals: []string{"ops_eyJ"}, re: anchor(`ops_eyJ[A-Za-z0-9+/=_-]{50,}`)},
	{kind: "google-oauth-token", literals: []string{"ya29.", "1//0"}, re: anchor(`(?:ya29\.|1//0)[A-Za-z0-9_-]{30,}`)},
	{kind: "google-oauth-secret", literals: []string{"GOCSPX-"}, re: anchor(`GOCSPX-[A-Za-z0-9_-]{24,}`)},
	{kind: "dropbox-token", literals: []string{"sl."}, re: anchor(`sl\.(?:u\.)?[A-Za-z0-9_-]{100,}`)},
	{kind: "atlassian-token", literals: []string{"ATATT3", "ATCTT3"}, re: anchor(`AT[AC]TT3[A-Za-z0-9_=-]{100,}`)},
	{kind: "bitbucket-token", literals: []string{"ATBB"}, re: anchor(`ATBB[A-Za-z0-9]{32,}\b`)},
	{kind: "dynatrace-token", literals: []string{"dt0c01."}, re: anchor(`dt0c01\.[A-Z0-9]{24}(?:\.[A-Z0-9]{64})?`)},
	{kind: "nuget-key", literals: []string{"oy2"}, re: anchor(`oy2[a-z0-9]{43}\b`)},
	{kind: "heroku-key", literals: []string{"HRKU-"}, re: anchor(`HRKU-[A-Za-z0-9_-]{30,}`)},
	{kind: "contentful-token", literals: []string{"CFPAT-"}, re: anchor(`CFPAT-[A-Za-z0-9_-]{43,}`)},
	{kind: "astra-token", literals: []string{"AstraCS:"}, re: anchor(`AstraCS:[A-Za-z0-9:_-]{40,}`)},
	{kind: "nvidia-key", literals: []string{"nvapi-"}, re: anchor(`nvapi-[A-Za-z0-9_-]{60,}`)},
	{kind: "easypost-key", literals: []string{"EZAK", "EZTK"}, re: anchor(`EZ[AT]K[A-Za-z0-9]{54,}\b`)},
	{kind: "mapbox-secret-token", literals: []string{"sk.eyJ", "tk.eyJ"}, re: anchor(`[st]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}|[st]k\.eyJ[A-Za-z0-9_-]{40,}`)},
	{kind: "prefect-key", literals: []string{"pnu_"}, re: anchor(`pnu_[A-Za-z0-9]{36,}\b`)},
	{kind: "readme-key", literals: []string{"rdme_"}, re: anchor(`rdme_[A-Za-z0-9]{70,}\b`)},
	{kind: "facebook-token", literals: []string{"EAAB", "EAAC", "EAAD", "EAAG", "EAAI", "EAAJ"}, re: anchor(`EAA[BCDGIJ][A-Za-z0-9]{80,}\b`)},
	{kind: "cerebras-key", literals: []string{"csk-"}, re: anchor(`csk-[a-z0-9]{40,}\b`)},
	{kind: "firebase-key", literals: []string{"AAAA"}, re: anchor(`AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}`)},
	{kind: "github-auth-header", literals: []string{"Authorization: token ", "authorization: token ", "Authorization: Token "},
		re: anchor(`[Aa]uthorization: [Tt]oken ([A-Za-z0-9_.-]{16,})`), valid: isBearerToken},
	{kind: "bearer-token", literals: []string{"Bearer", "bearer", "BEARER"}, re: bearer, valid: isBearerToken},
	{kind: "basic-auth", literals: []string{"Basic", "basic", "BASIC"}, re: basic, valid: isBasicCredentials},
}

// shapesByPair lists, for each two bytes, the shapes with a literal
// starting with them (or with the first, for a literal of one byte), in
// table order: a word tries only the shapes it could begin. shapePairs marks
// the two bytes some literal starts with (any second byte for a literal of
// one), so a word that starts no literal costs one lookup. Both are built
// the first time a text is redacted: a literal of one byte adds 256 pairs,
// and building them took a millisecond of every process's start.
var (
	shapeIndexOnce sync.Once
	shapesByPair   map[[2]byte][]*shape
	shapePairs     [256][256]bool
)

// buildShapeIndex fills shapesByPair and shapePairs (see shapeIndexOnce).
func buildShapeIndex() {
	shapesByPair = map[[2]byte][]*shape{}
	add := func(k [2]byte, sh *shape) {
		shapePairs[k[0]][k[1]] = true
		if list := shapesByPair[k]; len(list) == 0 || list[len(list)-1] != sh {
			shapesByPair[k] = append(list, sh)
		}
	}
	for i := range shapes {
		sh := &shapes[i]
		for _, l := range sh.literals {
			if len(l) > 1 {
				add([2]byte{l[0], l[1]}, sh)
				continue
			}
			for c := range 256 {
				add([2]byte{l[0], byte(c)}, sh)
			}
		}
	}
}

// wordBytes is isWordByte as a table.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c))
	}
	return t
}()

// shapeTokens finds every shape in one pass over s: at each word start the
// shapes are tried in table order, and a match is skipped over whole. One
// pass matters: the literals are common ("sk-" is in every "task-"), and
// searching for each of them through a whole history cost more than all the
// other rules together.
func shapeTokens(s string) []edit {
	var edits []edit
	shapeIndexOnce.Do(buildShapeIndex)
	for k := 0; k+1 < len(s); k++ {
		if shapePairs[s[k]][s[k+1]] {
			if e, end, ok := shapeAt(s, k, shapesByPair[[2]byte{s[k], s[k+1]}]); ok {
				edits = append(edits, e)
				k = end - 1
				continue
			}
		}
		// No literal starts inside a word: the rest of it is skipped.
		for k+1 < len(s) && wordBytes[s[k]] && wordBytes[s[k+1]] {
			k++
		}
	}
	return edits
}

// shapeAt tries the candidate shapes whose literal starts s[k:]. It returns
// the edit and where the whole match ends; a pattern with a group redacts
// only the group, so "Bearer" and hooks.slack.com stay.
func shapeAt(s string, k int, candidates []*shape) (edit, int, bool) {
	rest := s[k:]
	for _, sh := range candidates {
		for _, lit := range sh.literals {
			if !strings.HasPrefix(rest, lit) {
				continue
			}
			if sh.near != "" && !strings.Contains(rest[:min(len(rest), 20)], sh.near) {
				break
			}
			m := sh.re.FindStringSubmatchIndex(rest)
			if m == nil {
				break
			}
			start, end := m[0], m[1]
			if len(m) > 2 {
				start, end = m[2], m[3]
			}
			if sh.valid == nil || sh.valid(rest[start:end]) {
				return edit{k + start, k + end, sh.kind}, k + m[1], true
			}
			break
		}
	}
	return edit{}, 0, false
}

// anchor is a pattern that must match where a literal starts, compiled
// the first time it is matched: most runs of deja (a recall, a hook)
// redact nothing, and compiling the shapes' seventy patterns took 5 ms of
// every process's start.
func anchor(pattern string) *lazyre.Regexp { return lazyre.Unlisted(`^(?:` + pattern + `)`) }

// isWordByte is regexp's \b notion of a word character.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// openAIBody accepts the random part of an sk- key: mixed case with digits,
// or DeepSeek's 32 hex; names such as sk-learn-compatible-estimators fail.
func openAIBody(m string) bool {
	body := m[len("sk-"):]
	if len(body) == 32 && isHex(body) {
		_, lower, digit := classes(body)
		return lower && digit
	}
	upper, lower, digit := classes(body)
	return upper && lower && digit
}

// mixedClasses accepts a random part that mixes upper case, lower case and
// digits; secret_ and LTAI also start ordinary identifiers.
func mixedClasses(m string) bool {
	upper, lower, digit := classes(m)
	return upper && lower && digit
}

// notWords rejects matches that read as an identifier, like
// hf_HubDownloadConfigurationManagerV2: words run longer than random text.
func notWords(m string) bool {
	upper, lower, _ := classes(m)
	return upper && lower && len(m) < 3*classRuns(m)
}
