package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// Team configures team memory: the NATS server that carries shared turns
// and which projects are shared. Nothing is shared until URL and at least
// one project are set; with URL alone the member shares nothing and folds
// in what the team shares.
type Team struct {
	// URL is the NATS server URL, or several separated by commas.
	URL string
	// Creds is a NATS credentials file (.creds or nkey seed), empty for none.
	Creds string
	// CA is the PEM file of the authority that signed the server's TLS
	// certificate, for a server this machine's roots do not trust.
	CA string
	// Name is the team; it names the stream and the subjects.
	Name string
	// User is who this member publishes as; empty is the login name.
	User string
	// Projects are the project directories whose turns are shared.
	Projects []string
	// Replicas is the stream's replica count when this member creates it.
	Replicas int
}

// Enabled reports whether the store belongs to a team: it folds in the
// team's turns, and shares those of Projects.
func (t Team) Enabled() bool { return t.URL != "" }

// loadTeam reads the [team] keys. projects is a TOML array or, from the
// environment, directories separated like PATH; each is made absolute
// and ~ is expanded, as project directories are compared by path.
func loadTeam(v *viper.Viper) (Team, error) {
	t := Team{
		URL:   strings.TrimSpace(v.GetString("team.url")),
		Creds: expandHome(strings.TrimSpace(v.GetString("team.creds"))),
		CA:    expandHome(strings.TrimSpace(v.GetString("team.ca"))),
		Name:  strings.TrimSpace(v.GetString("team.name")),
		User:  strings.TrimSpace(v.GetString("team.user")),
		// A clustered team uses 3; more than 5 is refused by the server.
		Replicas: v.GetInt("team.replicas"),
	}
	var raw []string
	switch d := v.Get("team.projects").(type) {
	case string:
		raw = filepath.SplitList(d)
	case []any:
		for _, p := range d {
			s, ok := p.(string)
			if !ok {
				return t, fmt.Errorf("config: team.projects holds %v: use a list of project directories", p)
			}
			raw = append(raw, s)
		}
	case []string:
		raw = d
	case nil:
	default:
		return t, fmt.Errorf("config: team.projects is %v: use a list of project directories", d)
	}
	for _, p := range raw {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		abs, err := filepath.Abs(expandHome(p))
		if err != nil {
			return t, fmt.Errorf("config: team.projects: %s: %w", p, err)
		}
		t.Projects = append(t.Projects, filepath.Clean(abs))
	}
	if t.Replicas < 1 || t.Replicas > 5 {
		return t, fmt.Errorf("config: team.replicas is %d: use 1 (one server) to 5; a 3-node cluster uses 3", t.Replicas)
	}
	if t.Name == "" {
		t.Name = "default"
	}
	for _, r := range t.Name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return t, fmt.Errorf("config: team.name is %q: use letters, digits, - and _ only (it names NATS subjects)", t.Name)
		}
	}
	return t, nil
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
