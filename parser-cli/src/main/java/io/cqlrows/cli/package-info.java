/**
 * The {@code cqlrows} command line ({@link io.cqlrows.netty.cli.CqlRowsCli}): replays a recorded
 * server-to-client byte stream through the Netty pipeline and prints every ROWS result as JSON
 * lines or as text tables.
 *
 * <p>Ownership: capture chunks are handed to an {@code EmbeddedChannel}, which releases them; the
 * replay releases every frame that reaches its end of the pipeline. Threading: single-threaded;
 * everything runs on the calling thread.
 */
package io.cqlrows.cli;
