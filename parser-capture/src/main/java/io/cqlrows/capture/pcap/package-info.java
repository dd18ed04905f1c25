/**
 * Packet captures of CQL connections: reading tcpdump / Wireshark files into TCP byte streams, and
 * recording a live Netty connection as a capture.
 *
 * <ul>
 *   <li>{@link io.cqlrows.capture.pcap.PcapReader} streams the packets of a classic pcap or pcapng
 *       file; a malformed file raises {@link io.cqlrows.capture.pcap.PcapFormatException} with the
 *       byte offset.
 *   <li>{@link io.cqlrows.capture.pcap.TcpReassembler} decodes the link, IP and TCP layers of those
 *       packets and reassembles each connection's two byte streams into a {@link
 *       io.cqlrows.capture.pcap.TcpConnection} of two {@link io.cqlrows.capture.pcap.TcpStream}s,
 *       with the gaps it could not fill.
 *   <li>{@link io.cqlrows.capture.pcap.PcapWriter} writes one synthetic TCP connection (handshake,
 *       data, FIN) as a classic pcap; {@link io.cqlrows.capture.pcap.PcapRecordingHandler} feeds it
 *       from a channel's traffic.
 * </ul>
 *
 * <p>Ownership: none of these types holds a {@code ByteBuf}; packets and streams are plain byte
 * arrays owned by the objects that return them. The recording handler reads the buffers that pass
 * through it without touching their indices or reference counts. Threading: readers, reassemblers
 * and writers are single-threaded objects for one caller; the recording handler is one instance per
 * channel, called from its event loop. Finished {@code TcpConnection}s and {@code TcpStream}s are
 * immutable.
 */
package io.cqlrows.capture.pcap;
