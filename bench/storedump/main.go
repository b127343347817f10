// Command storedump prints a canonical dump of a deja data directory: every
// table of its database, row by row in a stable order, and a SHA-256 of
// every other file under it (the vector segments). Two stores that index
// the same histories the same way dump the same, so a change meant to keep
// what deja stores (a refactor) can be checked byte for byte:
//
//	DEJA_DATA_DIR=$(mktemp -d) OLLAMA_HOST=http://127.0.0.1:1 deja index -q FILES...
//	go run ./bench/storedump $DEJA_DATA_DIR > before.txt
//
// Left out is what the run itself decides: files.indexed_at, meta's ledger
// checksum, which covers it, and meta's path_key, the store's random key
// for the paths that held a secret.
package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	_ "modernc.org/sqlite"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: storedump DATA_DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := dump(flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

func dump(dir string) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "deja.db")+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	tables, err := strings1(db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'turns_fts_%' ORDER BY name`)
	if err != nil {
		return err
	}
	for _, t := range tables {
		cols, err := strings1(db, `SELECT name FROM pragma_table_info(?) WHERE name != 'indexed_at' ORDER BY cid`, t)
		if err != nil {
			return err
		}
		if t == "turns_fts" {
			cols = append([]string{"rowid"}, cols...)
		}
		fmt.Printf("== %s (%s)\n", t, strings.Join(cols, ", "))
		list := strings.Join(cols, ", ")
		where := ""
		if t == "meta" {
			where = ` WHERE key NOT IN ('ledger', 'path_key')`
		}
		rows, err := db.Query(`SELECT ` + list + ` FROM "` + t + `"` + where + ` ORDER BY ` + list)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return err
			}
			var b strings.Builder
			for i, v := range vals {
				if i > 0 {
					b.WriteString(" | ")
				}
				switch v := v.(type) {
				case []byte:
					b.WriteString("x" + hex.EncodeToString(v))
				case string:
					fmt.Fprintf(&b, "%q", v)
				default:
					fmt.Fprint(&b, v)
				}
			}
			fmt.Println(b.String())
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	fmt.Println("== files")
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(rel, "deja.db") || strings.HasSuffix(rel, ".lock") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, fmt.Sprintf("%x  %s", sha256.Sum256(b), rel))
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(files)
	fmt.Println(strings.Join(files, "\n"))
	return nil
}

// strings1 runs a query of one text column.
func strings1(db *sql.DB, q string, args ...any) ([]string, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
