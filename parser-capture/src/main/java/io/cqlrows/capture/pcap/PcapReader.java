package io.cqlrows.capture.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Streams the packets of a capture file, one at a time, without loading the file: classic pcap
 * (either byte order; microsecond magic {@code a1b2c3d4} or nanosecond {@code a1b23c4d}) and pcapng
 * (sections in either byte order; several interfaces, each with its link type and timestamp
 * resolution; Enhanced and Simple Packet Blocks; other blocks skipped). The format is detected from
 * the first four bytes.
 *
 * <pre>{@code
 * try (PcapReader reader = PcapReader.open(path)) {
 *   for (PcapPacket p; (p = reader.next()) != null; ) {
 *     handle(p);
 *   }
 * } catch (PcapFormatException e) {
 *   // e.reason(), e.offset(); every packet before the damage was returned
 * }
 * }</pre>
 *
 * <p><b>Errors.</b> A malformed file raises {@link PcapFormatException}, and nothing else, with the
 * offset of the header, record or block being read. The packets before it have been returned
 * already, so a file cut short inside its last packet yields every complete packet and then {@link
 * PcapFormatException.Reason#TRUNCATED}. The error is sticky: later calls throw it again. A packet
 * claiming more than {@link #MAX_PACKET_LENGTH} captured bytes is a lying length. An empty file is
 * TRUNCATED (it has no header). Simple Packet Blocks carry no timestamp; their packets have
 * timestamp 0.
 *
 * <p><b>Memory.</b> One packet at a time: a packet's array is allocated after its length was
 * checked against the limit, and grows with the bytes actually present.
 *
 * <p><b>Ownership and threading.</b> The reader owns its stream and closes it in {@link #close}.
 * Returned packets belong to the caller. Not thread-safe.
 */
public final class PcapReader implements Closeable {
  /** The largest captured length of one packet that is believed (16 MiB). */
  public static final int MAX_PACKET_LENGTH = 16 << 20;

  private static final int BUFFER_SIZE = 64 * 1024;

  private final InputStream stream;
  private final PcapInput in;

  /** The format's packet loop; null until the magic has been read. */
  private PacketSource source;

  /** The first format error, thrown again by every later call. */
  private PcapFormatException failure;

  /**
   * A reader of a capture in a stream. Nothing is read until {@link #next}.
   *
   * @param in the capture, from its first byte; the reader owns it from now on, and {@link #close}
   *     closes it
   */
  public PcapReader(InputStream in) {
    this.stream = new BufferedInputStream(Objects.requireNonNull(in, "in"), BUFFER_SIZE);
    this.in = new PcapInput(stream);
  }

  /** A reader of a capture file, streamed from disk. */
  public static PcapReader open(Path file) throws IOException {
    return new PcapReader(Files.newInputStream(file));
  }

  /**
   * The next packet, or {@code null} after the last.
   *
   * @throws PcapFormatException if the file is malformed or ends inside a header or packet
   * @throws IOException if reading the stream fails
   */
  public PcapPacket next() throws IOException {
    if (failure != null) {
      throw failure;
    }
    try {
      if (source == null) {
        source = detect();
      }
      return source.next();
    } catch (PcapFormatException e) {
      failure = e;
      throw e;
    }
  }

  /** Bytes of the capture read so far: the file offset after the last packet returned. */
  public long position() {
    return in.offset();
  }

  /**
   * True if {@code head}, the first bytes of a file, starts like a capture this reader reads: a
   * classic pcap magic number in either byte order and timestamp resolution, or a pcapng section
   * header.
   */
  public static boolean isCapture(byte[] head) {
    if (head.length < 4) {
      return false;
    }
    int magic = PcapInput.i32(head, 0, true);
    return ClassicPcapSource.isMagic(magic) || magic == PcapngSource.SECTION_HEADER;
  }

  /** Closes the stream. */
  @Override
  public void close() throws IOException {
    stream.close();
  }

  private PacketSource detect() throws IOException {
    byte[] head = new byte[4];
    int n = in.read(head, 0, 4);
    if (n < 4) {
      throw PcapFormatException.truncated(0, "file header", 24, n);
    }
    int magic = PcapInput.i32(head, 0, true);
    if (ClassicPcapSource.isMagic(magic)) {
      return ClassicPcapSource.open(in, magic);
    }
    if (magic == PcapngSource.SECTION_HEADER) {
      return PcapngSource.open(in);
    }
    throw PcapFormatException.badMagic(
        0, "file magic", magic, "a1b2c3d4 or a1b23c4d in either byte order, or pcapng 0a0d0d0a");
  }
}
