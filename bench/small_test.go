package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// sharedDir is the team's read-only corpora, next to the module.
const sharedDir = "../../shared"

// smallProjects are the projects BenchmarkGenerateSmall runs: sqlc's
// example projects and real projects' sqlc configurations, each a folder
// of sharedDir and its configuration file in it.
var smallProjects = []struct{ name, root, config string }{
	{"examples/authors", "corpus/peers/sqlc-examples", "examples/authors/sqlc.yaml"},
	{"examples/batch", "corpus/peers/sqlc-examples", "examples/batch/sqlc.json"},
	{"examples/booktest", "corpus/peers/sqlc-examples", "examples/booktest/sqlc.json"},
	{"examples/jets", "corpus/peers/sqlc-examples", "examples/jets/sqlc.json"},
	{"examples/ondeck", "corpus/peers/sqlc-examples", "examples/ondeck/sqlc.json"},
	{"real/simplebank", "corpus/real/techschool__simplebank", "sqlc.yaml"},
	{"real/niks3", "corpus/real/Mic92__niks3", "sqlc.yml"},
	{"real/galadriel", "corpus/real/HewlettPackard__galadriel", "pkg/server/db/sqlc.yaml"},
	{"real/kannon", "corpus/real/kannon-email__kannon", "sqlc.yaml"},
}

// benchConfig is the name of the configuration both tools read: the
// project's own reduced to its engine postgresql entries, written next to
// it, so that both generate the same packages (sqlc would also generate
// the mysql entries and fail on the sqlite ones, whose folders the corpus
// leaves out).
const benchConfig = "sqlc.bench.yaml"

// reduceConfig writes benchConfig next to the configuration at path: the
// same with only the entries (sql:, packages:) of engine postgresql.
func reduceConfig(tb testing.TB, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	for _, key := range []string{"sql", "packages"} {
		list, _ := cfg[key].([]any)
		var keep []any
		for _, e := range list {
			m, _ := e.(map[string]any)
			if eng, _ := m["engine"].(string); eng == "postgresql" || eng == "" {
				keep = append(keep, e)
			}
		}
		if list != nil {
			cfg[key] = keep
		}
	}
	delete(cfg, "cloud")
	out, err := yaml.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), benchConfig), out, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// copyDir copies the files under src to dst (os.CopyFS: the corpora hold
// no symbolic links).
func copyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkGenerateSmall runs fencegen and sqlc as processes on small
// projects (sqlc's examples and real projects, from ../shared), where
// process start and parser initialisation weigh most. Each project is a
// sub-benchmark; each iteration runs fencegen and then sqlc, each in its
// own copy of the project, on the same reduced configuration (benchConfig).
// Metrics as BenchmarkGenerate's: fencegen-ms and sqlc-ms are mean wall
// times per run, ratio fencegen's over sqlc's, cpu-ratio the same for CPU
// time, and rss-ratio fencegen's peak resident set size over sqlc's.
//
//	go test ./bench -run '^$' -bench 'GenerateSmall' -benchtime 20x -count 3
func BenchmarkGenerateSmall(b *testing.B) {
	if _, err := os.Stat(filepath.Join(sharedDir, "corpus")); err != nil {
		b.Skipf("SKIP: the shared corpora are not at %s: %v", sharedDir, err)
	}
	tl := benchTools(b)
	fencegen, sqlc := tl.fencegen, tl.sqlc
	if sqlc == "" {
		b.Log("SKIP sqlc: not found (set SQLC); only fencegen is measured")
	}
	for _, p := range smallProjects {
		b.Run(p.name, func(b *testing.B) {
			src := filepath.Join(sharedDir, p.root)
			if _, err := os.Stat(filepath.Join(src, p.config)); err != nil {
				b.Skipf("SKIP: %v", err)
			}
			dirs := map[string]string{}
			for _, tool := range []string{"fencegen", "sqlc"} {
				d := filepath.Join(b.TempDir(), tool)
				copyDir(b, src, d)
				reduceConfig(b, filepath.Join(d, p.config))
				dirs[tool] = filepath.Join(d, filepath.Dir(p.config))
			}
			var fgTime, sqlcTime, fgCPU, sqlcCPU time.Duration
			var fgPeak, sqlcPeak int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, cpu, rss := tl.run(b, dirs["fencegen"], fencegen, "generate", "-f", benchConfig)
				fgTime += d
				fgCPU += cpu
				fgPeak = max(fgPeak, rss)
				if sqlc != "" {
					d, cpu, rss := tl.run(b, dirs["sqlc"], sqlc, "--no-remote", "generate", "-f", benchConfig)
					sqlcTime += d
					sqlcCPU += cpu
					sqlcPeak = max(sqlcPeak, rss)
				}
			}
			b.ReportMetric(float64(fgTime.Microseconds())/1000/float64(b.N), "fencegen-ms")
			b.ReportMetric(float64(fgPeak)/(1<<20), "fencegen-peak-MiB")
			if sqlc != "" {
				b.ReportMetric(float64(sqlcTime.Microseconds())/1000/float64(b.N), "sqlc-ms")
				b.ReportMetric(float64(sqlcPeak)/(1<<20), "sqlc-peak-MiB")
				b.ReportMetric(float64(fgTime)/float64(sqlcTime), "ratio")
				b.ReportMetric(float64(fgCPU)/float64(sqlcCPU), "cpu-ratio")
				b.ReportMetric(float64(fgPeak)/float64(sqlcPeak), "rss-ratio")
			}
		})
	}
}

// TestSmallProjectsGenerate keeps BenchmarkGenerateSmall's inputs valid:
// fencegen generates every reduced configuration, and writes Go files.
func TestSmallProjectsGenerate(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sharedDir, "corpus")); err != nil {
		t.Skipf("SKIP: the shared corpora are not at %s: %v", sharedDir, err)
	}
	fencegen := fencegenBinary(t)
	for _, p := range smallProjects {
		t.Run(p.name, func(t *testing.T) {
			d := t.TempDir()
			copyDir(t, filepath.Join(sharedDir, p.root), d)
			reduceConfig(t, filepath.Join(d, p.config))
			dir := filepath.Join(d, filepath.Dir(p.config))
			cmd := exec.Command(fencegen, "generate", "-f", benchConfig)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fencegen generate: %v\n%s", err, out)
			}
			if fencegenFiles(d) == 0 {
				t.Error("fencegen wrote no Go file")
			}
		})
	}
}

// fencegenFiles counts the Go files under dir whose header names fencegen.
func fencegenFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), "// Code generated by fencegen.") {
			n++
		}
		return nil
	})
	return n
}
