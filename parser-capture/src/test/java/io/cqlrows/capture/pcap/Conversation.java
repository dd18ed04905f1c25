package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Test helper: a TCP connection written packet by packet, with data placed at explicit stream
 * offsets so that tests can retransmit, overlap, reorder and drop segments. Packets are 1 ms apart.
 * Data segments acknowledge what {@link #clientAcks} / {@link #serverAcks} last set.
 */
final class Conversation {
  static final InetSocketAddress CLIENT = LinkLayers.address("10.0.0.1", 50123);
  static final InetSocketAddress SERVER = LinkLayers.address("10.0.0.2", 9042);
  static final long T0 = 1_700_000_000_000_000_000L;

  private final InetSocketAddress client;
  private final InetSocketAddress server;
  private final int clientIsn;
  private final int serverIsn;
  private int linkType = LinkType.ETHERNET;
  private UnaryOperator<byte[]> link = LinkLayers::ethernet;
  private final List<PcapPacket> packets;
  private long time = T0;

  /** Server bytes the client acknowledges, and the reverse. */
  private long clientAcked;

  private long serverAcked;

  /** End of the data each side has sent so far: where its pure ACKs sit. */
  private long clientSent;

  private long serverSent;

  Conversation(
      InetSocketAddress client,
      InetSocketAddress server,
      int clientIsn,
      int serverIsn,
      List<PcapPacket> packets) {
    this.client = client;
    this.server = server;
    this.clientIsn = clientIsn;
    this.serverIsn = serverIsn;
    this.packets = packets;
  }

  Conversation(int clientIsn, int serverIsn) {
    this(CLIENT, SERVER, clientIsn, serverIsn, new ArrayList<>());
  }

  Conversation() {
    this(1000, 5000);
  }

  /** Wraps the following packets in another link layer. */
  Conversation link(int linkType, UnaryOperator<byte[]> link) {
    this.linkType = linkType;
    this.link = link;
    return this;
  }

  /** Sets the time of the next packet. */
  Conversation at(long nanos) {
    time = nanos;
    return this;
  }

  Conversation handshake() {
    packet(true, clientIsn, 0, TcpSegment.SYN, new byte[0]);
    packet(false, serverIsn, clientIsn + 1, TcpSegment.SYN | TcpSegment.ACK, new byte[0]);
    return packet(true, clientIsn + 1, serverIsn + 1, TcpSegment.ACK, new byte[0]);
  }

  /** Client data at a stream offset. */
  Conversation client(long offset, String data) {
    return client(offset, data.getBytes(US_ASCII));
  }

  Conversation client(long offset, byte[] data) {
    clientSent = Math.max(clientSent, offset + data.length);
    return packet(
        true,
        clientIsn + 1 + (int) offset,
        serverIsn + 1 + (int) clientAcked,
        TcpSegment.ACK | TcpSegment.PSH,
        data);
  }

  /** Server data at a stream offset. */
  Conversation server(long offset, String data) {
    return server(offset, data.getBytes(US_ASCII));
  }

  Conversation server(long offset, byte[] data) {
    serverSent = Math.max(serverSent, offset + data.length);
    return packet(
        false,
        serverIsn + 1 + (int) offset,
        clientIsn + 1 + (int) serverAcked,
        TcpSegment.ACK | TcpSegment.PSH,
        data);
  }

  /** A pure ACK from the client for the server's bytes before {@code offset}. */
  Conversation clientAcks(long offset) {
    clientAcked = offset;
    return packet(
        true,
        clientIsn + 1 + (int) clientSent,
        serverIsn + 1 + (int) offset,
        TcpSegment.ACK,
        new byte[0]);
  }

  /** A pure ACK from the server for the client's bytes before {@code offset}. */
  Conversation serverAcks(long offset) {
    serverAcked = offset;
    return packet(
        false,
        serverIsn + 1 + (int) serverSent,
        clientIsn + 1 + (int) offset,
        TcpSegment.ACK,
        new byte[0]);
  }

  /** FIN from the client after {@code offset} bytes. */
  Conversation clientFin(long offset) {
    return packet(
        true,
        clientIsn + 1 + (int) offset,
        serverIsn + 1 + (int) clientAcked,
        TcpSegment.FIN | TcpSegment.ACK,
        new byte[0]);
  }

  /** FIN from the server after {@code offset} bytes. */
  Conversation serverFin(long offset) {
    return packet(
        false,
        serverIsn + 1 + (int) offset,
        clientIsn + 1 + (int) serverAcked,
        TcpSegment.FIN | TcpSegment.ACK,
        new byte[0]);
  }

  /** Any segment. */
  Conversation packet(boolean fromClient, int seq, int ack, int flags, byte[] payload) {
    byte[] ip =
        fromClient
            ? LinkLayers.ipTcp(client, server, seq, ack, flags, payload)
            : LinkLayers.ipTcp(server, client, seq, ack, flags, payload);
    byte[] frame = link.apply(ip);
    packets.add(new PcapPacket(time, linkType, 0, frame, frame.length, 0));
    time += 1_000_000;
    return this;
  }

  List<PcapPacket> packets() {
    return packets;
  }

  /** The packets as a classic pcap file (all must share the link type). */
  byte[] toPcap() {
    return PcapFiles.classic(linkType, packets);
  }

  /** Reassembles the packets with a default reassembler. */
  List<TcpConnection> reassemble() {
    return reassemble(new TcpReassembler());
  }

  List<TcpConnection> reassemble(TcpReassembler reassembler) {
    packets.forEach(reassembler::add);
    return reassembler.finish();
  }

  /** The only connection. */
  TcpConnection only() {
    List<TcpConnection> all = reassemble();
    if (all.size() != 1) {
      throw new AssertionError("connections: " + all);
    }
    return all.get(0);
  }
}
