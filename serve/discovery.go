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

// Info is what serve.json holds. It never holds a TCP token, only
// whether one is needed; a client takes it from DEJA_TOKEN.
type Info struct {
	// Socket is the Unix domain socket local clients reach the server on.
	Socket string `json:"socket,omitempty"`
	// URL is where the server listens on TCP, such as
	// http://127.0.0.1:7464; empty unless it was asked to.
	URL string `json:"url,omitempty"`
	// Secret is the per-start secret the server proves it knows
	// (ProofPath) before a client sends it anything.
	Secret string `json:"secret"`
	PID    int    `json:"pid"`
	// DataDir is the store the server reads; a copied data directory
	// must not send its recalls to the original's server.
	DataDir string `json:"data_dir"`
	// Token says whether requests over TCP must carry a token.
	Token bool `json:"token"`
	// Embedder is the identity of the embedder the server embeds queries
	// with, empty when it has none.
	Embedder string    `json:"embedder"`
	Started  time.Time `json:"started"`
	// Auto says a recall started the server in the background (deja
	// serve --auto), so an explicit 'deja serve' may take its place.
	Auto bool `json:"auto,omitempty"`
}

// WriteInfo writes serve.json into dir, readable by its owner only, in
// one rename so a reader never sees half of it.
func WriteInfo(dir string, info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(dir, InfoFile, append(data, '\n'))
}

// TokenFile is where 'deja serve --addr' keeps the token it made when
// none was given: in the data directory, readable by its owner only.
const TokenFile = "serve.token"

// WriteToken writes token into TokenFile in dir, as WriteInfo writes.
func WriteToken(dir, token string) error {
	return writePrivate(dir, TokenFile, []byte(token+"\n"))
}

// writePrivate replaces dir/name with data through a 0600 temporary file.
func writePrivate(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return fmt.Errorf("serve: writing %s: %w", name, err)
	}
	defer os.Remove(f.Name())
	// CreateTemp makes the file 0600 already; say it, since it is the point.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("serve: writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("serve: writing %s: %w", name, err)
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
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

// RemoveStaleInfo removes serve.json from dir when it is still the file
// info was read from (the same secret): a client that found nothing
// answering cleans up after a killed server, and leaves a newer server's
// file alone. It reports whether it removed the file.
func RemoveStaleInfo(dir string, info Info) (bool, error) {
	now, err := ReadInfo(dir)
	if err != nil || now.Secret != info.Secret || now.PID != info.PID {
		return false, nil
	}
	if err := os.Remove(filepath.Join(dir, InfoFile)); err != nil {
		return false, err
	}
	return true, nil
}
