/**
 * Unsupported: the decoders and encoders {@link io.cqlrows.netty.CqlPipeline} installs (frames,
 * segments, compression, the body streaming they share) and their helpers. They are public only
 * because the supported packages use them; any of them may change or disappear in any version
 * without a note. Install and drive them through {@link io.cqlrows.netty.CqlPipeline}, which owns
 * every change to the pipeline; none of these types touches the pipeline itself.
 *
 * <p>Ownership and threading are stated per type: each decoder is one instance per channel, not
 * thread-safe, and transfers ownership of what it emits to the next handler.
 */
package io.cqlrows.netty.internal;
