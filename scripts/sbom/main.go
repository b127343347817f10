// Command sbom writes an SPDX 2.3 JSON software bill of materials for a Go
// binary from the module list the Go toolchain embeds in it (what
// `go version -m` prints): the main module and every module linked in, with
// its version, its go.sum hash and a package URL. The release
// configuration (.goreleaser.yaml) runs it once per built binary:
//
//	go run ./scripts/sbom -o deja.spdx.json path/to/deja
//
// It reads only the binary, needs no network and writes the same document
// for the same binary (the creation time is the binary's build time when
// SOURCE_DATE_EPOCH is set, else the binary's modification time).
package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "file to write (default: standard output)")
	name := flag.String("name", "", "document name (default: the binary's file name)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./scripts/sbom [-o FILE] [-name NAME] BINARY")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *name); err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
}

func run(bin, out, name string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("%s: %w (is it a Go binary?)", bin, err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if name == "" {
		name = filepath.Base(bin)
	}
	created, err := creationTime(bin)
	if err != nil {
		return err
	}
	doc := document(bi, name, data, created)
	var w io.Writer = os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// creationTime is SOURCE_DATE_EPOCH when set, so a reproducible build gets
// a reproducible document, else the binary's modification time.
func creationTime(bin string) (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", s)
		}
		return time.Unix(secs, 0).UTC(), nil
	}
	st, err := os.Stat(bin)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime().UTC(), nil
}

type spdxDoc struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      creationInfo   `json:"creationInfo"`
	Packages          []spdxPackage  `json:"packages"`
	Relationships     []relationship `json:"relationships"`
}

type creationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	Name             string        `json:"name"`
	SPDXID           string        `json:"SPDXID"`
	VersionInfo      string        `json:"versionInfo,omitempty"`
	DownloadLocation string        `json:"downloadLocation"`
	FilesAnalyzed    bool          `json:"filesAnalyzed"`
	Checksums        []checksum    `json:"checksums,omitempty"`
	ExternalRefs     []externalRef `json:"externalRefs,omitempty"`
	Comment          string        `json:"comment,omitempty"`
}

type checksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type externalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// spdxID turns a module path and version into an SPDX element ID.
func spdxID(path, version string) string {
	return "SPDXRef-Package-" + strings.Trim(idUnsafe.ReplaceAllString(path+"-"+version, "-"), "-")
}

func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + version
}

func document(bi *buildinfo.BuildInfo, name string, binary []byte, created time.Time) spdxDoc {
	sum := sha256.Sum256(binary)
	mainVersion := bi.Main.Version
	if mainVersion == "" {
		mainVersion = "(devel)"
	}
	root := spdxPackage{
		Name: bi.Main.Path, SPDXID: "SPDXRef-Package-main", VersionInfo: mainVersion,
		DownloadLocation: "NOASSERTION", FilesAnalyzed: false,
		Checksums: []checksum{{Algorithm: "SHA256", Value: hex.EncodeToString(sum[:])}},
		Comment:   "the binary " + name + ", built with " + bi.GoVersion + settingsNote(bi.Settings),
	}
	if bi.Main.Path != "" && mainVersion != "(devel)" {
		root.ExternalRefs = []externalRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: purl(bi.Main.Path, mainVersion)}}
	}
	doc := spdxDoc{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT", Name: name,
		DocumentNamespace: "https://spdx.org/spdxdocs/" + name + "-" + hex.EncodeToString(sum[:8]),
		CreationInfo: creationInfo{
			Created:  created.Format(time.RFC3339),
			Creators: []string{"Tool: deja scripts/sbom"},
		},
		Packages: []spdxPackage{root},
		Relationships: []relationship{
			{Element: "SPDXRef-DOCUMENT", Type: "DESCRIBES", Related: root.SPDXID},
		},
	}
	for _, m := range bi.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		p := spdxPackage{
			Name: m.Path, SPDXID: spdxID(m.Path, m.Version), VersionInfo: m.Version,
			DownloadLocation: "NOASSERTION", FilesAnalyzed: false,
			ExternalRefs: []externalRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: purl(m.Path, m.Version)}},
		}
		if m.Sum != "" {
			// go.sum's h1 hash is a SHA-256 over the module's file list,
			// not of one file, so it is a comment rather than a checksum.
			p.Comment = "go.sum " + m.Sum
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, relationship{Element: root.SPDXID, Type: "DEPENDS_ON", Related: p.SPDXID})
	}
	return doc
}

func settingsNote(settings []debug.BuildSetting) string {
	var parts []string
	for _, s := range settings {
		switch s.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "vcs.revision":
			parts = append(parts, s.Key+"="+s.Value)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
