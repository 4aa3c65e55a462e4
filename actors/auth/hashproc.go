package auth

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// A password hashing process is a child started with AuthOptions.HashCommand (for
// vmplane, `vmplane hash-worker`, which runs ServeHashWorker). It reads one JSON
// request a line on its stdin and writes one JSON answer a line on its stdout, one job
// at a time, at the lowest OS priority. See passwordHasher for why a child process.

// hashRequest is one job sent to a hashing process.
type hashRequest struct {
	Generate bool   `json:"generate,omitempty"`
	Hash     []byte `json:"hash,omitempty"`
	Password []byte `json:"password"`
	Cost     int    `json:"cost,omitempty"`
}

// hashAnswer is a hashing process's answer. Err is bcrypt's error, as text. A compare
// matched only when Match says so: an answer that lacks it (a broken or different
// child) must never let a password in.
type hashAnswer struct {
	Hash  []byte `json:"hash,omitempty"`
	Match bool   `json:"match,omitempty"`
	Err   string `json:"err,omitempty"`
	PID   int    `json:"pid"`
}

// bcryptErrors are the bcrypt errors an answer's Err is turned back into.
var bcryptErrors = []error{bcrypt.ErrMismatchedHashAndPassword, bcrypt.ErrPasswordTooLong, bcrypt.ErrHashTooShort}

// hashProcess is a running hashing process, used by one worker at a time.
type hashProcess struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	pipe *os.File // stdout, for read deadlines
	out  *bufio.Reader
	pid  int
	// took is how long the last job took: the next may take a few times that (a
	// higher cost, a busier machine) before the process counts as starved.
	took time.Duration
}

// hashPatience is how long a job may wait in a hashing process beyond a few times the
// last one's duration. The process runs only when nothing else wants the CPU; when
// other programs keep every core busy it gets nothing, and logins must not wait for
// them to finish: past this, the job is hashed in this process at normal priority.
const hashPatience = 2 * time.Second

func startHashProcess(command []string) (*hashProcess, error) {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	pipe, ok := out.(*os.File)
	if !ok {
		return nil, fmt.Errorf("hashing process: stdout is a %T", out)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &hashProcess{cmd: cmd, in: in, pipe: pipe, out: bufio.NewReader(pipe), pid: cmd.Process.Pid}, nil
}

// do runs one job in the process, waiting patience beyond a few times the last job's
// duration. An error means the process is of no more use.
func (p *hashProcess) do(j *hashJob, patience time.Duration) (hashResult, error) {
	line, err := json.Marshal(hashRequest{Generate: j.generate, Hash: j.hash, Password: j.password, Cost: j.cost})
	if err != nil {
		return hashResult{}, err
	}
	start := time.Now()
	deadline := start.Add(patience + 4*p.took)
	if err := p.pipe.SetReadDeadline(deadline); err != nil {
		return hashResult{}, err
	}
	// The write can block too, on a full pipe, if the child is starved.
	if w, ok := p.in.(interface{ SetWriteDeadline(time.Time) error }); ok {
		if err := w.SetWriteDeadline(deadline); err != nil {
			return hashResult{}, err
		}
	}
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		return hashResult{}, err
	}
	reply, err := p.out.ReadBytes('\n')
	if err != nil {
		return hashResult{}, err
	}
	p.took = time.Since(start)
	var a hashAnswer
	if err := json.Unmarshal(reply, &a); err != nil {
		return hashResult{}, fmt.Errorf("hashing process: bad answer %q: %w", reply, err)
	}
	r := hashResult{hash: a.Hash, pid: a.PID}
	if a.Err != "" {
		r.err = errors.New(a.Err)
		for _, e := range bcryptErrors {
			if a.Err == e.Error() {
				r.err = e
			}
		}
	}
	switch {
	case a.Err != "" && (a.Match || len(a.Hash) > 0):
		return hashResult{}, fmt.Errorf("hashing process: contradictory answer %q", reply)
	case !j.generate && a.Err == "" && !a.Match:
		return hashResult{}, fmt.Errorf("hashing process: compare answer with neither match nor error: %q", reply)
	case j.generate && a.Err == "" && len(a.Hash) == 0:
		return hashResult{}, fmt.Errorf("hashing process: generate answer without a hash: %q", reply)
	}
	return r, nil
}

// close ends the process: its stdin closes, so it exits; it is killed if it does not
// within a second (it may be in the middle of a hash, or starved). A nil process is a
// no-op.
func (p *hashProcess) close() {
	if p == nil {
		return
	}
	_ = p.in.Close()
	exited := make(chan struct{})
	go func() {
		_ = p.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
	}
}

// kill ends the process at once: it failed, or it is starved of CPU and would take
// as long to exit.
func (p *hashProcess) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

// ServeHashWorker is the hashing process: it lowers its priority, then answers the
// jobs read from r on w until r ends. `vmplane hash-worker` runs it.
func ServeHashWorker(r io.Reader, w io.Writer) error {
	// All the hashing runs on this goroutine, locked to the thread whose priority is
	// lowered; the process has nothing else to do.
	runtime.LockOSThread()
	if err := lowerThreadPriority(); err != nil {
		fmt.Fprintf(os.Stderr, "vmplane hash-worker: hashing at normal priority: %v\n", err)
	}
	in := bufio.NewReader(r)
	enc := json.NewEncoder(w)
	for {
		line, err := in.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		if err != nil {
			return err
		}
		var q hashRequest
		if err := json.Unmarshal(line, &q); err != nil {
			return fmt.Errorf("hash-worker: bad request: %w", err)
		}
		a := hashAnswer{PID: os.Getpid()}
		if q.Generate {
			a.Hash, err = bcrypt.GenerateFromPassword(q.Password, q.Cost)
		} else {
			err = bcrypt.CompareHashAndPassword(q.Hash, q.Password)
			a.Match = err == nil
		}
		if err != nil {
			a.Err = err.Error()
		}
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
}
