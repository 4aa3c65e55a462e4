package persistence

// Kinds of keys the store's own tests write. They stand for any package's records: the
// real kinds and their owners are in each owner's table (see Keys).
const (
	KindUser      = "user"
	KindUserEmail = "user-email"
	KindVM        = "vm"
	KindTask      = "task"
	KindFirewall  = "fw"
)
