/**
 * The {@code cqlrows} command line ({@link io.cqlrows.cli.CqlRowsCli}), an application built on the
 * library, which no library module depends on: {@code replay} decodes captured traffic (pcap files,
 * raw byte streams) through the Netty pipeline and prints every ROWS result as JSON lines or text
 * tables; {@code stats} summarises a capture.
 *
 * <p>Ownership: capture chunks are handed to an {@code EmbeddedChannel}, which releases them; the
 * replay releases every frame that reaches its end of the pipeline. Threading: single-threaded;
 * everything runs on the calling thread.
 */
package io.cqlrows.cli;
