// Command ferretdb runs FerretDB 1.24.2 with its SQLite backend for the server's embedded database.
// It wraps the embeddable package because the upstream command refuses to start when it is built
// from the module proxy (its version file is generated at release time and is not in the module),
// and gives every collection's table the index its lookups by _id need (indexLookups, below).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	_ "modernc.org/sqlite"
)

// FerretDB 1.24's SQLite backend finds a document by _id with `WHERE _ferretdb_sjson->'$._id' = ?`
// (queries, updates and deletes alike) but indexes _id as `_ferretdb_sjson->"_id"`. The two give the
// same value, yet SQLite uses an index on an expression only for that very expression, so every lookup
// by _id read the table until it met the record: seconds for one near the end of a million tokens,
// the whole table for one that is not there. This adds, to each collection's table, an index on the
// expression the lookups use.
const lookupExpression = `_ferretdb_sjson->'$._id'`

// indexLookups indexes the tables of every database in dir that lack the lookup index, skipping the
// files whose schema did not change since the last pass (seen: file -> PRAGMA schema_version).
func indexLookups(ctx context.Context, dir string, seen map[string]int64, logger *slog.Logger) {
	files, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if err != nil {
		return
	}
	for _, file := range files {
		version, err := indexFile(ctx, file, seen[file])
		if err != nil {
			// A database being made or dropped: the next pass sees it as it is then.
			logger.DebugContext(ctx, "lookup index not added yet", slog.String("file", file), slog.String("error", err.Error()))
			continue
		}
		seen[file] = version
	}
	for file := range seen {
		if _, err := os.Stat(file); err != nil {
			delete(seen, file)
		}
	}
}

// indexFile adds the lookup index to the file's collection tables when its schema changed since
// `known`; the schema version it leaves.
func indexFile(ctx context.Context, file string, known int64) (int64, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var version int64
	if err := db.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		return 0, err
	}
	if version == known {
		return version, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM _ferretdb_collections`)
	if err != nil {
		return 0, err
	}
	var tables []string
	for rows.Next() {
		var table string
		if err := rows.Scan(&table); err != nil {
			rows.Close()
			return 0, err
		}
		tables = append(tables, table)
	}
	rows.Close()
	for _, table := range tables {
		index := fmt.Sprintf("%q", table+"__id_lookup")
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %q (%s)", index, table, lookupExpression)); err != nil {
			return 0, err
		}
	}
	if err := db.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		return 0, err
	}
	return version, nil
}

// sqliteDir is the directory a file: URI names.
func sqliteDir(uri string) (string, error) {
	parsed, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	dir := parsed.Opaque
	if dir == "" {
		dir = parsed.Path
	}
	return strings.TrimSuffix(dir, "/"), nil
}

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (empty: none)")
	listenUnix := flag.String("listen-unix", "", "Unix domain socket path to listen on (empty: none)")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite directory URI (must end with a slash)")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	exitWithParent := flag.Bool("exit-on-stdin-close", false, "stop when standard input closes (the parent process died)")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "invalid -log-level:", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := sqliteDir(*sqliteURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "invalid -sqlite-url:", err)
		os.Exit(2)
	}
	// The tables there already, before any lookup; then those made since, every second.
	seen := map[string]int64{}
	indexLookups(context.Background(), dir, seen, logger)

	db, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listenAddr, Unix: *listenUnix},
		Handler:   "sqlite",
		SQLiteURL: *sqliteURL,
		Logger:    logger,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *exitWithParent {
		// A parent killed without cleanup closes our stdin; without this the database would keep the port and files.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	go func() {
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				indexLookups(ctx, dir, seen, logger)
			}
		}
	}()

	if err := db.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}
