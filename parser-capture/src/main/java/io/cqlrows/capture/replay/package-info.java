/**
 * Replaying captured CQL byte streams through the cqlrows pipeline, for tests and tools: {@link
 * io.cqlrows.capture.replay.CaptureReplay}.
 *
 * <p>Everything runs on the calling thread on an {@code EmbeddedChannel}; results hold no buffers.
 */
package io.cqlrows.capture.replay;
