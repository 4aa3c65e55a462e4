// Package traffic counts each machine's network traffic from the counters the
// hypervisor keeps (Proxmox's netin and netout: bytes since the machine's process
// started, back to 0 at each restart). The inventory sync hands it the counters it read
// (Record); it keeps each machine's last counters and adds what they moved to the
// machine's hour and month (a counter below the last one means the machine restarted:
// all it holds is new). The usage close reads the hours (Hour), the API a machine's
// month (Month), and a cluster-wide job compares each month with its plan's allowance
// and has the operator's overage action taken once per machine and month, undone at
// the month's turn (overage.go). It imports no room: the composition root feeds it.
package traffic
