// Package manifests holds mailbot's deployment files and their tests: the
// Kubernetes kustomizations (kubernetes/), the Slack app manifest
// (slack-app.yaml), and, from the repository's root, the Dockerfile, CI's
// build, the release workflows and compose.yaml. It has no code: its tests
// (package manifests_test) decode every file strictly into the types of
// the programs that read them (Kubernetes', kustomize's, slack-go's,
// compose-go's) and check them against the code, so that the root
// package's tests need none of those libraries.
package manifests
