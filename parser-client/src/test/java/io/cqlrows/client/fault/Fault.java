package io.cqlrows.client.fault;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One fault for {@link FaultProxy} to inject into the server-to-client byte stream of a connection,
 * at a protocol boundary: it targets the response (v4 frame, v5 envelope) that follows the first
 * {@code afterResponses} responses the server sends once the fault is armed (counted from the
 * connection's start for {@link FaultProxy#faultNextConnection}: the replies to OPTIONS and STARTUP
 * are responses 0 and 1, so {@code afterResponses(2)} is the answer to the first request after the
 * handshake; AUTHENTICATE, AUTH_CHALLENGE and AUTH_SUCCESS count too).
 *
 * <p>Where the response is cut ({@link Kind#CUT}, {@link Kind#RESET}, {@link Kind#STALL}): after
 * its 9-byte header and half of its body (mid-header, after 4 bytes, for an empty body). On v5
 * after the handshake the responses travel in segments: the cut falls at that point of the envelope
 * in an uncompressed segment, and in the middle of the segment's payload in an LZ4 segment (whose
 * bytes do not map to the envelope's); for an envelope sliced across segments, in its first slice.
 *
 * <p>Single use: a fault fires at most once, on the first connection that reaches its target (also
 * when armed on several), and {@link #fired()} then completes. Thread-safe.
 */
public final class Fault {
  /** The body length {@link Kind#OVERSIZE} writes into the target's header. */
  public static final int OVERSIZE_LENGTH = 0x7FFFFFF0;

  /** What the proxy does to the target response. */
  public enum Kind {
    /** Forwards the response up to the cut, then closes the client connection (FIN). */
    CUT,
    /**
     * Forwards the response up to the cut, then, once that is flushed and 20 ms later, resets the
     * client connection (SO_LINGER 0: RST).
     */
    RESET,
    /**
     * Forwards the response up to the cut, then nothing more from the server: both connections stay
     * open, the proxy stops reading the server; the client's bytes still reach it.
     */
    STALL,
    /**
     * From the target response on, forwards the server's bytes {@link #chunkBytes()} at a time, one
     * chunk per {@link #delay()} (the proxy stops reading the server while 64 KiB wait).
     */
    DRIP,
    /**
     * The target response never reaches the client; everything else does. On v5 its envelope is
     * taken out of its segment, which is written anew (CRCs recomputed; an LZ4 segment stored
     * uncompressed), or dropped when it held nothing else; a sliced envelope loses all its
     * segments.
     */
    DROP,
    /**
     * The target's header declares a body of {@link #OVERSIZE_LENGTH} bytes; the bytes stay as they
     * were. On v5 the segment carrying the header is written anew with valid CRCs (an LZ4 segment
     * stored uncompressed), so the change reaches the envelope decoder.
     */
    OVERSIZE,
    /**
     * One bit of the target is flipped: on v5 after the handshake in the middle of its segment's
     * on-wire payload, CRC32 left as it was (so the client sees a mismatch); on v4 and before the
     * v5 handshake in the middle of its body (of its header's flags byte if the body is empty),
     * where nothing checks it.
     */
    BITFLIP
  }

  /** What happened when the fault fired. */
  public record Fired(int connection, long response, int opcode, int streamId) {
    @Override
    public String toString() {
      return "connection "
          + connection
          + ", response "
          + response
          + " (opcode 0x"
          + Integer.toHexString(opcode)
          + ", stream "
          + streamId
          + ")";
    }
  }

  private final Kind kind;
  private final int afterResponses;
  private final int chunkBytes;
  private final Duration delay;
  private final CompletableFuture<Fired> fired = new CompletableFuture<>();

  private Fault(Kind kind, int afterResponses, int chunkBytes, Duration delay) {
    if (afterResponses < 0) {
      throw new IllegalArgumentException("afterResponses: " + afterResponses);
    }
    this.kind = Objects.requireNonNull(kind);
    this.afterResponses = afterResponses;
    this.chunkBytes = chunkBytes;
    this.delay = delay;
  }

  /** {@link Kind#CUT} of the response after {@code n} responses. */
  public static Fault cutAfterResponses(int n) {
    return new Fault(Kind.CUT, n, 0, Duration.ZERO);
  }

  /** {@link Kind#RESET} in the response after {@code n} responses. */
  public static Fault resetAfterResponses(int n) {
    return new Fault(Kind.RESET, n, 0, Duration.ZERO);
  }

  /** {@link Kind#STALL} in the response after {@code n} responses. */
  public static Fault stallAfterResponses(int n) {
    return new Fault(Kind.STALL, n, 0, Duration.ZERO);
  }

  /**
   * {@link Kind#DRIP} from the response after {@code n} responses on.
   *
   * @param chunkBytes bytes per chunk, 1 or more
   * @param delay between chunks, at least 1 ms
   */
  public static Fault dripAfterResponses(int n, int chunkBytes, Duration delay) {
    if (chunkBytes < 1 || delay.toMillis() < 1) {
      throw new IllegalArgumentException("chunkBytes " + chunkBytes + ", delay " + delay);
    }
    return new Fault(Kind.DRIP, n, chunkBytes, delay);
  }

  /** {@link Kind#DROP} of the response after {@code n} responses. */
  public static Fault dropAfterResponses(int n) {
    return new Fault(Kind.DROP, n, 0, Duration.ZERO);
  }

  /** {@link Kind#OVERSIZE} of the response after {@code n} responses. */
  public static Fault oversizeAfterResponses(int n) {
    return new Fault(Kind.OVERSIZE, n, 0, Duration.ZERO);
  }

  /** {@link Kind#BITFLIP} in the response after {@code n} responses. */
  public static Fault bitflipAfterResponses(int n) {
    return new Fault(Kind.BITFLIP, n, 0, Duration.ZERO);
  }

  public Kind kind() {
    return kind;
  }

  public int afterResponses() {
    return afterResponses;
  }

  /** {@link Kind#DRIP}: bytes per chunk; 0 for the other kinds. */
  public int chunkBytes() {
    return chunkBytes;
  }

  /** {@link Kind#DRIP}: the delay between chunks; zero for the other kinds. */
  public Duration delay() {
    return delay;
  }

  /** Completes when the fault fires, on the proxy's event loop: do not block in callbacks. */
  public CompletableFuture<Fired> fired() {
    return fired;
  }

  public boolean hasFired() {
    return fired.isDone();
  }

  /** Marks the fault fired; false if it had fired already (on another connection). */
  boolean fire(Fired what) {
    return fired.complete(what);
  }

  @Override
  public String toString() {
    return kind
        + " after "
        + afterResponses
        + " responses"
        + (kind == Kind.DRIP ? " (" + chunkBytes + " bytes every " + delay.toMillis() + " ms)" : "")
        + (hasFired() ? ", fired: " + fired.join() : "");
  }
}
