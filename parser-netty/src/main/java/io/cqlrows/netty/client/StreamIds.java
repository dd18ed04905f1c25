package io.cqlrows.netty.client;

import java.util.BitSet;

/**
 * The stream ids of one connection, 0 to 32767 (native_protocol_v5.spec section 2.4.1.3): an id is
 * in use from the request's write until its response (or failure). Ids are handed out round-robin
 * from after the last one, so a just-released id is not reused at once.
 *
 * <p><b>Threading.</b> Not thread-safe: used from the channel's event loop only.
 */
final class StreamIds {
  /** Number of ids: 0 to 32767. */
  static final int COUNT = Short.MAX_VALUE + 1;

  private final BitSet used = new BitSet(COUNT);
  private int next;
  private int inUse;

  /** A free id, now in use, or -1 if all 32768 are in use. */
  int allocate() {
    if (inUse == COUNT) {
      return -1;
    }
    int id = used.nextClearBit(next);
    if (id >= COUNT) {
      id = used.nextClearBit(0);
    }
    used.set(id);
    inUse++;
    next = id + 1 == COUNT ? 0 : id + 1;
    return id;
  }

  /**
   * Takes a given id if it is free (the handshake's OPTIONS and STARTUP both use 0, as the Java
   * driver's do); the round-robin position does not move.
   *
   * @return whether the id was free and is now in use
   */
  boolean allocate(int id) {
    if (id < 0 || id >= COUNT || used.get(id)) {
      return false;
    }
    used.set(id);
    inUse++;
    return true;
  }

  /** Frees an id; a free id stays free. */
  void release(int id) {
    if (id >= 0 && id < COUNT && used.get(id)) {
      used.clear(id);
      inUse--;
    }
  }

  /** The number of ids in use. */
  int inUse() {
    return inUse;
  }
}
