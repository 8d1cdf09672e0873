//go:build !unix

package session

import (
	"errors"
	"os"
)

// tryLock: session locks need flock, which this system lacks.
func tryLock(*os.File) (bool, error) {
	return false, errors.ErrUnsupported
}
