package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// migrations holds the schema's SQL files, NNN_name.sql, applied in the
// order of NNN.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrateLock is the advisory lock's key: "mailbot" in ASCII.
const migrateLock = 0x6d61696c626f74

// migrateTimeout bounds the wait for the lock and the migration.
const migrateTimeout = 2 * time.Minute

// migration is one SQL file.
type migration struct {
	version int
	name    string
}

// migrate applies the migrations that the database lacks, in one
// transaction under an advisory lock, so that replicas starting together
// apply each once.
func (s *Store) migrate(ctx context.Context) error {
	all, err := listMigrations()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		done, err := s.lockAndList(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range all {
			if done[m.version] {
				continue
			}
			if err := apply(ctx, tx, m); err != nil {
				return err
			}
			s.logger.Info("database migrated", zap.String("migration", m.name))
		}
		return nil
	})
}

// lockAndList takes the migrations' lock for the transaction and returns
// the versions applied.
func (s *Store) lockAndList(ctx context.Context, tx pgx.Tx) (map[int]bool, error) {
	// In the simple protocol, at once: pgx would prepare the SELECT of a
	// batch before the table exists.
	_, err := tx.Exec(ctx, fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d);
		CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied timestamptz NOT NULL DEFAULT now())`, migrateLock))
	if err != nil {
		return nil, err
	}
	rows, _ := tx.Query(ctx, "SELECT version FROM schema_migrations")
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	done := make(map[int]bool)
	for _, v := range versions {
		done[v] = true
	}
	return done, err
}

// apply runs migration m's SQL and records it.
func apply(ctx context.Context, tx pgx.Tx, m migration) error {
	sql, err := migrations.ReadFile("migrations/" + m.name)
	if err != nil {
		return err
	}
	// Exec without arguments sends the file in the simple protocol, so
	// that it may hold several statements.
	if _, err := tx.Exec(ctx, string(sql)); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	_, err = tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
	return err
}

// listMigrations returns the embedded migrations in order.
func listMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: the name does not start with a number", name)
		}
		out = append(out, migration{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}
