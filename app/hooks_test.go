package app

import "github.com/vmplane/vmplane/actors"

// What the tests reach inside a running App; the program itself needs none of it.

// System is the running actor system.
func (a *App) System() *actors.System { return a.sys }
