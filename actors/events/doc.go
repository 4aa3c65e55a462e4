// Package events is the event bus behind GET /api/events: publishers never block,
// subscribers that fall behind are cut off and resume from the kept backlog with
// Last-Event-ID, and each subscriber sees only its tenant's events (operators all).
package events
