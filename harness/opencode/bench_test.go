package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// BenchmarkReadCorpus reads every corpus store per iteration; its MB/s is
// of the stores' file sizes, the figure in the README.
func BenchmarkReadCorpus(b *testing.B) {
	paths := corpusStores(b)
	var size int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	harnesstest.BenchBytes(b, size, func() {
		for _, p := range paths {
			if _, err := ReadStore(context.Background(), p, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeParts decodes the corpus's part and message JSON, the
// bytes a store of large tool outputs is made of, without SQLite.
func BenchmarkDecodeParts(b *testing.B) {
	var parts, msgs [][]byte
	var size int64
	for _, p := range corpusStores(b) {
		db, err := openForTest(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []struct {
			sql string
			dst *[][]byte
		}{{`SELECT data FROM part`, &parts}, {`SELECT data FROM message`, &msgs}} {
			rows, err := db.Query(q.sql)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var d []byte
				rows.Scan(&d)
				*q.dst = append(*q.dst, d)
				size += int64(len(d))
			}
			rows.Close()
		}
		db.Close()
	}
	var sc jsonscan.Scanner
	harnesstest.BenchBytes(b, size, func() {
		for _, d := range parts {
			var p partInfo
			decodePart(&sc, d, &p)
		}
		for _, d := range msgs {
			var m messageInfo
			decodeMessage(&sc, d, &m)
		}
	})
}

// BenchmarkReadScaledStore reads a store of the largest corpus store's
// sessions copied 40 times under new ids, so the rate is a store's
// steady state rather than the fixed cost of opening a small file; its
// MB/s is of the store's file size.
func BenchmarkReadScaledStore(b *testing.B) {
	var src string
	var best int64
	for _, p := range corpusStores(b) {
		if fi, err := os.Stat(p); err == nil && fi.Size() > best {
			src, best = p, fi.Size()
		}
	}
	path := filepath.Join(b.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		b.Fatal(err)
	}
	abs, _ := filepath.Abs(src)
	stmts := []string{
		`ATTACH DATABASE 'file:` + abs + `?mode=ro&immutable=1' AS src`,
		`CREATE TABLE session AS SELECT id, parent_id, directory, time_created, time_updated FROM src.session WHERE 0`,
		`CREATE TABLE message AS SELECT * FROM src.message WHERE 0`,
		`CREATE TABLE part AS SELECT * FROM src.part WHERE 0`,
	}
	for i := range 40 {
		k := fmt.Sprintf("'%02d'", i)
		stmts = append(stmts,
			`INSERT INTO session SELECT id||`+k+`, parent_id||`+k+`, directory, time_created, time_updated FROM src.session`,
			`INSERT INTO message SELECT id||`+k+`, session_id||`+k+`, time_created, time_updated, data FROM src.message`,
			`INSERT INTO part SELECT id||`+k+`, message_id||`+k+`, session_id||`+k+`, time_created, time_updated, data FROM src.part`)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	harnesstest.BenchBytes(b, fi.Size(), func() {
		h, err := ReadStore(context.Background(), path, nil)
		if err != nil || len(h.Sessions) == 0 {
			b.Fatal(err)
		}
	})
}
