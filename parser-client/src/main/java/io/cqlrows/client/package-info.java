/**
 * A small example client, not a driver: {@link io.cqlrows.client.CqlClient} opens one connection
 * (protocol v4 or v5, optionally LZ4), sends QUERY, PREPARE and EXECUTE, and shows how a driver
 * wires the request encoders, the v5 switch to segments, stream ids and {@link
 * io.cqlrows.netty.rows.RowsFrameHandler} together.
 *
 * <p>Ownership: request values are borrowed and encoded before each call returns; the client
 * releases every frame it receives. Threading: the client may be used from any thread; sinks are
 * called and futures completed on the connection's event loop.
 */
package io.cqlrows.client;
