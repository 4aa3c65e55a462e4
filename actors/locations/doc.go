// Package locations holds the locations: the hypervisor clusters vmplane runs machines
// in beside the one its settings configure (one Proxmox cluster per data centre, or
// another simulated one). A location is a record, location/<id>, with its driver's
// settings, the Proxmox token's secret stored sealed with the key of
// --location-secret-key-file (or read from a file the record names); the service keeps
// the dispatcher (hypervisor/locations) holding one driver per location in step with
// the records, on every member, through the store's watch.
//
// The default location, "default", is the configured driver: it is no record, it is
// always listed first, and it is neither changed nor deleted through the API.
package locations
