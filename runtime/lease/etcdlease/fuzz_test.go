package etcdlease

import (
	"strconv"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// FuzzBaseOf: the base key's value, read from etcd, is a non-negative
// integer or an error, never a panic or a negative base.
func FuzzBaseOf(f *testing.F) {
	for _, s := range []string{"0", "17", "9223372036854775807", "-1", "", "1e3", " 5", "0x10"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		r := &etcdserverpb.RangeResponse{Kvs: []*mvccpb.KeyValue{{Key: []byte("fencegen/r/base"), Value: v}}}
		b, err := baseOf(r)
		if err != nil {
			return
		}
		if b < 0 {
			t.Fatalf("negative base %d from %q", b, v)
		}
		// Every later token adds b: a value etcd holds must not be read
		// as another number.
		if want, perr := strconv.ParseInt(string(v), 10, 64); perr != nil || want != b {
			t.Fatalf("base %d from %q", b, v)
		}
	})
}
