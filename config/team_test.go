package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTeamSharesNothingByDefault(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Team.Enabled() || len(c.Team.Projects) != 0 || c.Team.URL != "" {
		t.Errorf("team = %+v, want nothing shared by default", c.Team)
	}
}

func TestTeamKeysFromFileAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "deja"), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := "[team]\nurl = \"nats://127.0.0.1:4222\"\nname = \"core\"\nprojects = [\"/src/api\", \"/src/web/\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "deja", "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Team.Enabled() || c.Team.Name != "core" || len(c.Team.Projects) != 2 || c.Team.Projects[1] != "/src/web" {
		t.Errorf("team = %+v, want core sharing /src/api and /src/web", c.Team)
	}
	t.Setenv("DEJA_TEAM_PROJECTS", "/a"+string(filepath.ListSeparator)+"/b")
	t.Setenv("DEJA_TEAM_CREDS", "/keys/me.creds")
	if c, err = Load(nil); err != nil {
		t.Fatal(err)
	}
	if len(c.Team.Projects) != 2 || c.Team.Projects[0] != "/a" || c.Team.Creds != "/keys/me.creds" {
		t.Errorf("team = %+v, want /a and /b and the creds from the environment", c.Team)
	}
	t.Setenv("DEJA_TEAM_NAME", "a.b")
	if _, err := Load(nil); err == nil {
		t.Error("team.name with a dot was accepted; it would split a subject")
	}
}

// A member who sets team.url and shares no project belongs to the team:
// it folds in what the team shares.
func TestTeamURLAloneFoldsTheTeam(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("DEJA_TEAM_URL", "nats://127.0.0.1:4222")
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Team.Enabled() || len(c.Team.Projects) != 0 {
		t.Errorf("team = %+v, want a member sharing nothing", c.Team)
	}
}
