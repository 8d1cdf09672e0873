package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// maxBatch bounds the writes one transaction groups.
const maxBatch = 256

// errClosed is the error of a write made after Close.
var errClosed = errors.New("session: store is closed")

// writeReq is one small write waiting for the batcher. fn returns the
// ids of the messages it added, which the batch indexes for search
// before it commits (index.go).
type writeReq struct {
	fn   func(tx *sql.Tx) ([]int64, error)
	done chan error
}

// batcher groups the small writes that arrive together (appends, usage,
// session state) into one transaction: every write still succeeds or
// fails alone, and is durable when it returns, but many concurrent
// conversations share one commit instead of queueing for one commit each
// on the single write connection. A batch runs first as it is; when one
// of its writes fails it runs again with each write in a savepoint of its
// own. A write that arrives alone is a transaction of its own.
type batcher struct {
	reqs chan writeReq
	done chan struct{}
}

func (s *Store) startBatcher() {
	s.batch = &batcher{reqs: make(chan writeReq), done: make(chan struct{})}
	go s.runBatches()
}

// inTx runs fn in a transaction shared with the writes that arrive with
// it, and returns its error (or the commit's).
func (s *Store) inTx(fn func(tx *sql.Tx) error) error {
	return s.inTxIndexed(func(tx *sql.Tx) ([]int64, error) { return nil, fn(tx) })
}

// inTxIndexed is inTx for a write that adds messages: fn returns their
// ids, and they are indexed for search in the same transaction.
func (s *Store) inTxIndexed(fn func(tx *sql.Tx) ([]int64, error)) error {
	if s.batch == nil {
		return errClosed
	}
	req := writeReq{fn: fn, done: make(chan error, 1)}
	s.batch.reqs <- req
	return <-req.done
}

func (s *Store) runBatches() {
	defer close(s.batch.done)
	for first := range s.batch.reqs {
		batch := []writeReq{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-s.batch.reqs:
				if !ok {
					break gather
				}
				batch = append(batch, r)
			default:
				break gather
			}
		}
		s.commitBatch(batch)
	}
}

func (s *Store) commitBatch(batch []writeReq) {
	if len(batch) > 1 && s.commitTogether(batch) {
		return
	}
	ctx := context.Background() // one writer's cancellation must not undo the others'
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		for _, r := range batch {
			r.done <- err
		}
		return
	}
	errs := make([]error, len(batch))
	if len(batch) == 1 {
		ids, err := batch[0].fn(tx)
		if err == nil {
			err = s.indexMessages(ctx, tx, ids)
		}
		if err != nil {
			tx.Rollback()
			batch[0].done <- err
			return
		}
	} else {
		for i, r := range batch {
			errs[i] = s.inSavepoint(tx, r.fn)
		}
	}
	cerr := tx.Commit()
	for i, r := range batch {
		if cerr != nil {
			r.done <- fmt.Errorf("commit: %w", cerr)
			continue
		}
		r.done <- errs[i]
	}
}

// commitTogether runs the writes of batch in one transaction without a
// savepoint each, the common case where every one succeeds, and reports
// whether it committed them. When one fails, or the commit does, it
// rolls everything back and the batch runs again with savepoints, so
// that each write still succeeds or fails alone.
func (s *Store) commitTogether(batch []writeReq) bool {
	tx, err := s.w.BeginTx(context.Background(), nil)
	if err != nil {
		return false
	}
	var ids []int64
	for _, r := range batch {
		added, err := r.fn(tx)
		if err != nil {
			tx.Rollback()
			return false
		}
		ids = append(ids, added...)
	}
	if err := s.indexMessages(context.Background(), tx, ids); err != nil {
		tx.Rollback()
		return false
	}
	if err := tx.Commit(); err != nil {
		tx.Rollback()
		return false
	}
	for _, r := range batch {
		r.done <- nil
	}
	return true
}

// inSavepoint runs fn, and indexes the messages it added, so that its
// failure undoes only its own changes.
func (s *Store) inSavepoint(tx *sql.Tx, fn func(tx *sql.Tx) ([]int64, error)) error {
	if _, err := tx.Stmt(s.stmts.savepoint).Exec(); err != nil {
		return err
	}
	ids, err := fn(tx)
	if err == nil {
		err = s.indexMessages(context.Background(), tx, ids)
	}
	if err != nil {
		if _, rerr := tx.Exec(`ROLLBACK TO write`); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	if _, rerr := tx.Stmt(s.stmts.release).Exec(); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// batchStmts are the statements the batcher runs for every write,
// prepared once.
type batchStmts struct {
	savepoint, release, usage *sql.Stmt
	// record and prompt are the pending writes of AppendMessageWith.
	record, prompt *sql.Stmt
	index          *sql.Stmt // index.go
}

func (s *Store) prepareBatch() error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = s.w.Prepare(q)
		return st
	}
	s.stmts = batchStmts{savepoint: prep(`SAVEPOINT write`), release: prep(`RELEASE write`), usage: prep(usageSQL),
		record: prep(recordSQL), prompt: prep(promptSQL), index: prep(indexSQL)}
	return err
}

func (b batchStmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{b.savepoint, b.release, b.usage, b.record, b.prompt, b.index} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// stopBatcher ends the batcher once the writes given to it are done.
func (s *Store) stopBatcher() {
	if s.batch == nil {
		return
	}
	close(s.batch.reqs)
	<-s.batch.done
	s.batch = nil
}
