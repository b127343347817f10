package opencode

import (
	"context"
	"os"
	"testing"

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
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, p := range paths {
			if _, err := ReadStore(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	}
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
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	var sc jsonscan.Scanner
	for range b.N {
		for _, d := range parts {
			var p partInfo
			decodePart(&sc, d, &p)
		}
		for _, d := range msgs {
			var m messageInfo
			decodeMessage(&sc, d, &m)
		}
	}
}
