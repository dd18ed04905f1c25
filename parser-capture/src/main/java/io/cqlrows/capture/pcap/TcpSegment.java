package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;

/**
 * One decoded TCP segment: endpoints, sequence and acknowledgment numbers, flags, and where its
 * payload lies in the packet's array.
 *
 * <p>Ownership: {@code packet} is the captured packet's array, borrowed from the {@link
 * PcapPacket}; the payload is {@code packet[payloadOffset, payloadOffset + payloadLength)}.
 *
 * @param source sender
 * @param destination receiver
 * @param seq sequence number of the first byte (of the SYN, if set)
 * @param ack acknowledgment number, meaningful if {@link #ACK} is set
 * @param flags TCP flags ({@link #FIN}, {@link #SYN}, ...)
 * @param packet the captured packet
 * @param payloadOffset start of the payload in {@code packet}
 * @param payloadLength captured payload bytes (within the IP length)
 * @param missingLength payload bytes the IP length announces beyond those captured (cut by the
 *     snapshot length)
 */
@SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
record TcpSegment(
    InetSocketAddress source,
    InetSocketAddress destination,
    int seq,
    int ack,
    int flags,
    byte[] packet,
    int payloadOffset,
    int payloadLength,
    int missingLength) {
  static final int FIN = 0x01;
  static final int SYN = 0x02;
  static final int RST = 0x04;
  static final int PSH = 0x08;
  static final int ACK = 0x10;

  /** True if every bit of {@code flag} is set. */
  boolean has(int flag) {
    return (flags & flag) == flag;
  }
}
