package redact

import (
	"regexp"
	"strings"
)

// A shape is a secret recognisable on its own: a provider's published token
// format, a JWT, a private key block, an Authorization header's credential.
// Literals are the prefixes every match starts with; the anchored regexp is
// tried only at a word that starts with one of them.
type shape struct {
	kind     string
	literals []string
	re       *regexp.Regexp
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
	{kind: "bearer-token", literals: []string{"Bearer", "bearer", "BEARER"}, re: bearer, valid: isBearerToken},
	{kind: "basic-auth", literals: []string{"Basic", "basic", "BASIC"}, re: basic, valid: isBasicCredentials},
}

// shapesByStart lists, for each byte, the shapes with a literal starting
// with it, in table order: a word costs one lookup and tries only the
// shapes it could begin.
var shapesByStart = func() (index [256][]*shape) {
	for i := range shapes {
		sh := &shapes[i]
		for _, l := range sh.literals {
			if list := index[l[0]]; len(list) == 0 || list[len(list)-1] != sh {
				index[l[0]] = append(list, sh)
			}
		}
	}
	return index
}()

// shapeTokens finds every shape in one pass over s: at each word start the
// shapes are tried in table order, and a match is skipped over whole. One
// pass matters: the literals are common ("sk-" is in every "task-"), and
// searching for each of them through a whole history cost more than all the
// other rules together.
func shapeTokens(s string) []edit {
	var edits []edit
	for k := 0; k < len(s); k++ {
		candidates := shapesByStart[s[k]]
		if len(candidates) == 0 || k > 0 && isWordByte(s[k-1]) && isWordByte(s[k]) {
			continue
		}
		if e, end, ok := shapeAt(s, k, candidates); ok {
			edits = append(edits, e)
			k = end - 1
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

// anchor compiles a pattern that must match where a literal starts.
func anchor(pattern string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + pattern + `)`) }

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

// notWords rejects matches that read as an identifier, like
// hf_HubDownloadConfigurationManagerV2: words run longer than random text.
func notWords(m string) bool {
	upper, lower, _ := classes(m)
	return upper && lower && len(m) < 3*classRuns(m)
}
