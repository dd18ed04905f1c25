package io.cqlrows.capture.pcap;

/**
 * One captured packet, as read from a capture file by {@link PcapReader}.
 *
 * <p>Ownership: {@code data} is the packet's own array, not copied on access; whoever holds the
 * packet may keep it, and should not modify it. Immutable otherwise.
 *
 * @param timestampNanos capture time, in nanoseconds since the Unix epoch (UTC), converted from the
 *     file's resolution; saturates at {@link Long#MAX_VALUE} for absurd values
 * @param linkType the link-layer header type of the packet's interface ({@link LinkType})
 * @param interfaceId index of the pcapng interface in its section; 0 for classic pcap
 * @param data the captured bytes, starting with the link-layer header; may be shorter than the
 *     packet was on the wire (snapshot length)
 * @param originalLength the packet's length on the wire
 * @param fileOffset byte offset in the file of the packet's record or block
 */
@SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
public record PcapPacket(
    long timestampNanos,
    int linkType,
    int interfaceId,
    byte[] data,
    long originalLength,
    long fileOffset) {

  /** A short description for debugging: offset, link type and lengths. */
  @Override
  public String toString() {
    return "PcapPacket{offset="
        + fileOffset
        + ", linkType="
        + linkType
        + ", interface="
        + interfaceId
        + ", captured="
        + data.length
        + ", original="
        + originalLength
        + ", timestampNanos="
        + timestampNanos
        + "}";
  }
}
