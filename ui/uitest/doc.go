// Package uitest holds the web console's browser tests: chromedp drives a headless
// Chromium (Debian's chromium package) against a real server on loopback. Without a
// Chromium they skip, unless VMPLANE_REQUIRE_BROWSER is set (as .ci/run does), which
// makes a missing browser a failure.
package uitest
