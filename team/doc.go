// Package team shares chosen projects' memory across machines and people
// over NATS JetStream. It publishes a store's turns of shared projects —
// read back from the store, so already redacted — and tombstones of
// forgotten sessions to one stream per team, and folds what others
// published into the local store through a durable consumer per machine.
// Recall stays local; this package owns no ranking and no index.
package team
