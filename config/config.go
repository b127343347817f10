package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is deja's resolved configuration.
type Config struct {
	// DataDir holds the store (ledger, keyword index, vectors).
	DataDir string
	// ConfigDir holds config.toml and aider-projects.
	ConfigDir string
	// File is the config file that was read, empty when none existed.
	File string

	Embed  Embed
	Ollama Ollama
	Chunk  Chunk
	Recall Recall
	// Harnesses configure each harness by name (see HarnessNames).
	Harnesses map[string]Harness
	// Team configures team memory; nothing is shared by default.
	Team Team
	// Serve configures the shared warm service.
	Serve Serve
	// Hook bounds what 'deja hook' puts in front of an agent.
	Hook Hook

	// Sources says where each key's value came from: "flag --limit",
	// "env DEJA_RECALL_LIMIT", "config file" or "default".
	Sources map[string]string
	// Unknown are the config file's keys deja does not know (a typo, or a
	// key of another version), sorted.
	Unknown []string
}

// Hook is the token budget (estimated as bytes/4) of each moment 'deja
// hook' answers.
type Hook struct {
	PromptTokens  int
	StartTokens   int
	ToolTokens    int
	CompactTokens int
}

// Serve configures the warm service a cold recall starts in the
// background.
type Serve struct {
	// Autostart lets a recall or hook that finds no service start one.
	Autostart bool
	// Idle is how long a service started that way waits for a request
	// before it exits.
	Idle time.Duration
}

// Embed selects and tunes the embedder.
type Embed struct {
	// Provider is auto, ollama or builtin.
	Provider string
	// Model is the Ollama model name.
	Model string
	// Batch is how many texts go into one Ollama request.
	Batch int
	// Timeout bounds one Ollama request.
	Timeout time.Duration
}

// Ollama locates the Ollama server.
type Ollama struct {
	// Host overrides OLLAMA_HOST when set.
	Host string
}

// Chunk tunes how turns become embedded text.
type Chunk struct {
	// Budget is the most characters of one chunk's embedded text.
	Budget int
}

// Recall tunes recall's defaults.
type Recall struct {
	Mode  string
	Limit int
}

// Keys and their defaults. A key a.b is read from DEJA_A_B in the
// environment and from [a] b = … in config.toml.
var defaults = map[string]any{
	"data.dir":       "",
	"embed.provider": "auto",
	"embed.model":    "nomic-embed-text",
	"embed.batch":    32,
	"embed.timeout":  "60s",
	"ollama.host":    "",
	"chunk.budget":   2000,
	"recall.mode":    "hybrid",
	"recall.limit":   5,

	"aider.enabled":    true,
	"aider.dirs":       "",
	"amp.enabled":      true,
	"amp.dirs":         "",
	"claude.enabled":   true,
	"claude.dirs":      "",
	"cline.enabled":    true,
	"cline.dirs":       "",
	"codex.enabled":    true,
	"codex.dirs":       "",
	"continue.enabled": true,
	"continue.dirs":    "",
	"copilot.enabled":  true,
	"copilot.dirs":     "",
	"crush.enabled":    true,
	"crush.dirs":       "",
	"cursor.enabled":   true,
	"cursor.dirs":      "",
	"factory.enabled":  true,
	"factory.dirs":     "",
	"gemini.enabled":   true,
	"gemini.dirs":      "",
	"hermes.enabled":   true,
	"hermes.dirs":      "",
	"goose.enabled":    true,
	"goose.dirs":       "",
	"grok.enabled":     true,
	"grok.dirs":        "",
	"kimi.enabled":     true,
	"kimi.dirs":        "",
	"opencode.enabled": true,
	"opencode.dirs":    "",
	"pi.enabled":       true,
	"pi.dirs":          "",
	"qwen.enabled":     true,
	"qwen.dirs":        "",
	"dsh.enabled":      true,
	"dsh.dirs":         "",
	"zed.enabled":      true,
	"zed.dirs":         "",

	"antigravity.enabled": true,
	"antigravity.dirs":    "",

	"kiro.enabled": true,
	"kiro.dirs":    "",

	"team.url":      "",
	"team.creds":    "",
	"team.ca":       "",
	"team.name":     "",
	"team.user":     "",
	"team.projects": "",
	"team.replicas": 1,

	"serve.autostart": true,
	"serve.idle":      "15m",

	"hook.prompt_tokens":  1500,
	"hook.start_tokens":   600,
	"hook.tool_tokens":    300,
	"hook.compact_tokens": 600,
}

// Keys lists every configuration key deja knows, sorted, for help and
// `deja config`.
func Keys() []string {
	return slices.Sorted(maps.Keys(defaults))
}

// Flags maps configuration keys to the command-line flags that override
// them; a nil FlagSet or a missing flag leaves the key to lower layers.
type Flags map[string]*pflag.Flag

// Load resolves the configuration from defaults, the config file, the
// environment and the given flags, in rising order of precedence.
func Load(flags Flags) (Config, error) {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("DEJA")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()

	cfgDir := ConfigDir()
	file := filepath.Join(cfgDir, "config.toml")
	v.SetConfigFile(file)
	v.SetConfigType("toml")
	read := ""
	if err := v.ReadInConfig(); err != nil {
		if !errors.Is(err, os.ErrNotExist) && !isNotFound(err) {
			return Config{}, fmt.Errorf("config: reading %s: %w (fix or remove the file)", file, err)
		}
	} else {
		read = file
	}
	for key, f := range flags {
		if f == nil {
			continue
		}
		if err := v.BindPFlag(key, f); err != nil {
			return Config{}, fmt.Errorf("config: binding flag for %s: %w", key, err)
		}
	}

	c := Config{
		DataDir:   v.GetString("data.dir"),
		ConfigDir: cfgDir,
		File:      read,
		Embed: Embed{
			Provider: strings.ToLower(strings.TrimSpace(v.GetString("embed.provider"))),
			Model:    strings.TrimSpace(v.GetString("embed.model")),
			Batch:    v.GetInt("embed.batch"),
			Timeout:  v.GetDuration("embed.timeout"),
		},
		Ollama: Ollama{Host: strings.TrimSpace(v.GetString("ollama.host"))},
		Chunk:  Chunk{Budget: v.GetInt("chunk.budget")},
		Recall: Recall{Mode: v.GetString("recall.mode"), Limit: v.GetInt("recall.limit")},
		Serve:  Serve{Autostart: v.GetBool("serve.autostart"), Idle: v.GetDuration("serve.idle")},
		Hook: Hook{PromptTokens: v.GetInt("hook.prompt_tokens"), StartTokens: v.GetInt("hook.start_tokens"),
			ToolTokens: v.GetInt("hook.tool_tokens"), CompactTokens: v.GetInt("hook.compact_tokens")},
	}
	if c.DataDir == "" {
		c.DataDir = DataDir()
	}
	h, err := loadHarnesses(v)
	if err != nil {
		return c, err
	}
	c.Harnesses = h
	if c.Team, err = loadTeam(v); err != nil {
		return c, err
	}
	c.Sources = map[string]string{}
	for key := range defaults {
		c.Sources[key] = source(v, flags, read, key)
	}
	if read != "" {
		for _, key := range v.AllKeys() {
			if _, ok := defaults[key]; !ok && v.InConfig(key) {
				c.Unknown = append(c.Unknown, key)
			}
		}
		sort.Strings(c.Unknown)
	}
	if err := c.validate(); err != nil {
		var bad invalidValue
		if errors.As(err, &bad) {
			return c, bad.from(v, flags, read)
		}
		return c, err
	}
	return c, nil
}

// invalidValue is a configuration value deja cannot use: its key, the
// value as shown, and what to use instead.
type invalidValue struct{ key, value, want string }

func (e invalidValue) Error() string {
	return fmt.Sprintf("config: %s is %s: %s", e.key, e.value, e.want)
}

// from names where the value came from, the way it was given: a flag
// ("--limit 0: use a positive number"), an environment variable, the
// config file; a default says only the key.
func (e invalidValue) from(v *viper.Viper, flags Flags, file string) error {
	switch src := source(v, flags, file, e.key); {
	case strings.HasPrefix(src, "flag "):
		f := flags[e.key]
		return fmt.Errorf("--%s %s: %s", f.Name, f.Value.String(), e.want)
	case strings.HasPrefix(src, "env "):
		env := EnvName(e.key)
		return fmt.Errorf("%s=%s (%s): %s", env, os.Getenv(env), e.key, e.want)
	case src == "config file":
		return fmt.Errorf("config: %s is %s in %s: %s", e.key, e.value, file, e.want)
	}
	return e
}

// source is where key's value comes from, in viper's order of
// precedence: a flag given, a DEJA_* variable that is set (an empty one
// counts as unset, as viper reads it), the config file, else the default.
func source(v *viper.Viper, flags Flags, file, key string) string {
	if f := flags[key]; f != nil && f.Changed {
		return "flag --" + f.Name
	}
	if env := EnvName(key); os.Getenv(env) != "" {
		return "env " + env
	}
	if file != "" && v.InConfig(key) {
		return "config file"
	}
	return "default"
}

// EnvName is the environment variable that sets key: DEJA_RECALL_LIMIT
// for recall.limit.
func EnvName(key string) string {
	return "DEJA_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

func (c Config) validate() error {
	switch c.Embed.Provider {
	case "auto", "ollama", "builtin":
	default:
		return invalidValue{"embed.provider", strconv.Quote(c.Embed.Provider), "use auto, ollama or builtin"}
	}
	if c.Embed.Batch < 1 {
		return invalidValue{"embed.batch", strconv.Itoa(c.Embed.Batch), "use a positive number"}
	}
	if c.Embed.Timeout <= 0 {
		return invalidValue{"embed.timeout", c.Embed.Timeout.String(), "use a positive duration such as 60s"}
	}
	if c.Chunk.Budget < 200 {
		return invalidValue{"chunk.budget", strconv.Itoa(c.Chunk.Budget), "use at least 200 characters"}
	}
	if c.Serve.Idle <= 0 {
		return invalidValue{"serve.idle", c.Serve.Idle.String(), "use a positive duration such as 15m"}
	}
	for key, n := range map[string]int{"hook.prompt_tokens": c.Hook.PromptTokens, "hook.start_tokens": c.Hook.StartTokens,
		"hook.tool_tokens": c.Hook.ToolTokens, "hook.compact_tokens": c.Hook.CompactTokens} {
		if n < 1 {
			return invalidValue{key, strconv.Itoa(n), "use a positive number of tokens"}
		}
	}
	if c.Recall.Limit < 1 {
		return invalidValue{"recall.limit", strconv.Itoa(c.Recall.Limit), "use a positive number"}
	}
	return nil
}

func isNotFound(err error) bool {
	var nf viper.ConfigFileNotFoundError
	return errors.As(err, &nf)
}

// ConfigDir is $XDG_CONFIG_HOME/deja, by default ~/.config/deja.
func ConfigDir() string {
	return filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "deja")
}

// DataDir is $DEJA_DATA_DIR, else $XDG_DATA_HOME/deja, by default
// ~/.local/share/deja.
func DataDir() string {
	if d := os.Getenv("DEJA_DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join(xdg("XDG_DATA_HOME", filepath.Join(".local", "share")), "deja")
}

// ProjectsFile is the list of project directories `deja aider` has started
// aider in: $XDG_CONFIG_HOME/deja/aider-projects.
func ProjectsFile() string {
	return filepath.Join(ConfigDir(), "aider-projects")
}

func xdg(env, fallback string) string {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	return filepath.Join(home, fallback)
}
