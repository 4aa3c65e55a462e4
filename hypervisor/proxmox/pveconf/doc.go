// Package pveconf reads and writes the text of Proxmox VE that the driver (package
// proxmox) works on, with no I/O of its own: a VM's config (FromJSON, its disk lines
// with their sizes, its netN and ipconfigN strings, tags, the CD-ROM drive and the boot
// order) and the machine it describes (Machine), the answers of the API it decodes
// (power states, UPIDs, rrddata points, numbers sent as strings), and firewall rules
// with the steps that make one rule list another.
package pveconf
