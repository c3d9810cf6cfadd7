// TEMPORARY stub so cmd/fencegen compiles until gen/generate.go lands.
// Delete this file when Generate exists.

package gen

import (
	"context"
	"errors"
)

// Generate is a temporary stub.
func Generate(ctx context.Context, cfg *Config) (*Output, error) {
	return nil, errors.New("gen.Generate: not implemented yet")
}
