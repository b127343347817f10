package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// LogFile is where a service started in the background writes what
// 'deja serve' prints, replaced at each start.
const LogFile = "serve.log"

// StartBackground starts the service command (path with args, argv[0]
// included) for dataDir in the background, detached from the caller's
// terminal, unless a service already holds dataDir's lock. It takes the
// lock first and hands it to the new process (LockFDEnv), so any number
// of concurrent cold recalls start at most one service, and the new
// service never races another for the lock. It returns whether it
// started one; it never waits for the service.
func StartBackground(dataDir, path string, args, env []string) (bool, error) {
	if !canDetach {
		return false, nil
	}
	lock, err := TryLock(dataDir)
	if err != nil || lock == nil {
		return false, err
	}
	defer lock.Close()
	logf, err := os.OpenFile(filepath.Join(dataDir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, fmt.Errorf("serve: %w", err)
	}
	defer logf.Close()
	cmd := &exec.Cmd{
		Path:   path,
		Args:   args,
		Env:    append(env, LockFDEnv+"=3"),
		Dir:    dataDir,
		Stdout: logf,
		Stderr: logf,
		// ExtraFiles[0] is descriptor 3 in the child.
		ExtraFiles:  []*os.File{lock.f},
		SysProcAttr: detached(),
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("serve: starting the service: %w", err)
	}
	// The service outlives this process by design. Waiting in the
	// background reaps it should it end first (a long 'deja find'); a
	// short recall exits without waiting and the system adopts it.
	go cmd.Wait()
	return true, nil
}
