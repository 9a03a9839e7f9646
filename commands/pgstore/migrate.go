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
	c, err := s.pool.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.pool.release(c) // closed if the transaction did not end
	var b batch
	rows, err := b.add("BEGIN").add("SELECT pg_advisory_xact_lock($1)", int64(migrateLock)).
		add(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
			applied timestamptz NOT NULL DEFAULT now())`).
		add("SELECT version FROM schema_migrations").run(ctx, c)
	if err != nil {
		return err
	}
	done := make(map[string]bool)
	for _, r := range rows[3] {
		done[r[0]] = true
	}
	for _, m := range all {
		if done[strconv.Itoa(m.version)] {
			continue
		}
		sql, err := migrations.ReadFile("migrations/" + m.name)
		if err != nil {
			return err
		}
		if _, err := c.Exec(ctx, string(sql)).ReadAll(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		var ins batch
		if _, err := ins.add("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name).run(ctx, c); err != nil {
			return err
		}
		s.logger.Info("database migrated", zap.String("migration", m.name))
	}
	_, err = c.Exec(ctx, "COMMIT").ReadAll()
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
