// Command ferretdb runs FerretDB 1.24.2 with its SQLite backend for the server's embedded database.
// It wraps the embeddable package because the upstream command refuses to start when it is built
// from the module proxy (its version file is generated at release time and is not in the module).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

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

	if err := db.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}
