package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SqlcVersion is the version of sqlc, the peer, that the comparisons
// with it are made against.
const SqlcVersion = "v1.31.1"

// SqlcBinary is the path of sqlc SqlcVersion, the peer some tests and
// benchmarks run as a process (never a dependency of the module): the
// first of $SQLC (as .ci/run sets it), sqlc on PATH and
// $(go env GOPATH)/bin/sqlc whose "sqlc version" prints SqlcVersion, or
// "" when none does (go install
// github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 puts it in the last place).
func SqlcBinary() string {
	candidates := []string{os.Getenv("SQLC"), "sqlc"}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath, _, _ := strings.Cut(strings.TrimSpace(string(out)), string(os.PathListSeparator))
		candidates = append(candidates, filepath.Join(gopath, "bin", "sqlc"))
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if out, err := exec.Command(path, "version").Output(); err == nil && strings.TrimSpace(string(out)) == SqlcVersion {
			return path
		}
	}
	return ""
}
