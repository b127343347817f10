package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// InfoFile is the file in the data directory by which a running 'deja
// serve' announces itself to 'deja recall'.
const InfoFile = "serve.json"

// Info is what serve.json holds. It never holds the token itself, only
// whether one is needed; a client takes it from DEJA_TOKEN.
type Info struct {
	// URL is where to reach the server, such as http://127.0.0.1:7464.
	URL string `json:"url"`
	PID int    `json:"pid"`
	// DataDir is the store the server reads; a copied data directory
	// must not send its recalls to the original's server.
	DataDir string `json:"data_dir"`
	// Token says whether requests must carry a token.
	Token bool `json:"token"`
	// Embedder is the identity of the embedder the server embeds queries
	// with, empty when it has none.
	Embedder string    `json:"embedder"`
	Started  time.Time `json:"started"`
}

// WriteInfo writes serve.json into dir, readable by its owner only, in
// one rename so a reader never sees half of it.
func WriteInfo(dir string, info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, InfoFile+".*")
	if err != nil {
		return fmt.Errorf("serve: writing %s: %w", InfoFile, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("serve: writing %s: %w", InfoFile, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("serve: writing %s: %w", InfoFile, err)
	}
	// CreateTemp makes the file 0600 already; say it, since it is the point.
	if err := os.Chmod(f.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, InfoFile))
}

// ReadInfo reads serve.json from dir.
func ReadInfo(dir string) (Info, error) {
	var info Info
	data, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("serve: reading %s: %w", InfoFile, err)
	}
	return info, nil
}

// RemoveInfo removes serve.json from dir if it still names the server
// with this pid; a newer server's file stays.
func RemoveInfo(dir string, pid int) error {
	info, err := ReadInfo(dir)
	if err != nil || info.PID != pid {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, InfoFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
