package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.testing.RecordingSink;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link PagingState}: immutable opaque bytes, equal by content, shown shortened; and the one a
 * ROWS result carries, read from the wire without being shared.
 */
class PagingStateTest {
  /** The [option] id of int. */
  private static final int INT = 0x0009;

  @Test
  void keepsACopyOfItsBytesAndGivesCopies() {
    byte[] bytes = {(byte) 0xCA, (byte) 0xFE};
    PagingState state = PagingState.of(bytes);
    bytes[0] = 0;
    assertArrayEquals(new byte[] {(byte) 0xCA, (byte) 0xFE}, state.bytes());
    state.bytes()[1] = 0;
    assertArrayEquals(new byte[] {(byte) 0xCA, (byte) 0xFE}, state.bytes());
  }

  @Test
  void isEqualByItsBytes() {
    PagingState state = PagingState.of(new byte[] {1, 2, 3});
    assertEquals(PagingState.of(new byte[] {1, 2, 3}), state);
    assertEquals(PagingState.of(new byte[] {1, 2, 3}).hashCode(), state.hashCode());
    assertNotEquals(PagingState.of(new byte[] {1, 2}), state);
    assertEquals(PagingState.of(state.bytes()), state, "bytes() and of() round-trip");
    assertNotEquals(state, new Object());
  }

  @Test
  void showsItsLengthAndTheFirstSixteenBytesInHex() {
    assertEquals("PagingState[2 bytes: cafe]", PagingState.of(new byte[] {-54, -2}).toString());
    assertEquals("PagingState[1 byte: 07]", PagingState.of(new byte[] {7}).toString());
    assertEquals("PagingState[0 bytes: ]", PagingState.of(new byte[0]).toString());
    byte[] forty = new byte[40];
    for (int i = 0; i < forty.length; i++) {
      forty[i] = (byte) i;
    }
    assertEquals(
        "PagingState[40 bytes: 000102030405060708090a0b0c0d0e0f...]",
        PagingState.of(forty).toString());
  }

  @Test
  void rejectsNull() {
    assertThrows(NullPointerException.class, () -> PagingState.of(null));
  }

  @Test
  void aRowsResultWithMorePagesCarriesOne() {
    RowsResult r =
        (RowsResult)
            Decoding.read(
                new ResultReader(4),
                RowsBodies.rows().pagingState("cafe").column("a", INT).build(),
                new RecordingSink(),
                null);
    assertTrue(r.metadata().hasMorePages());
    assertEquals(Optional.of(PagingState.of(new byte[] {-54, -2})), r.metadata().pagingState());
    assertTrue(r.metadata().toString().contains("paging_state=PagingState[2 bytes: cafe]"));
  }

  @Test
  void theLastPageHasNone() {
    RowsResult r =
        (RowsResult)
            Decoding.read(
                new ResultReader(4),
                RowsBodies.rows().column("a", INT).build(),
                new RecordingSink(),
                null);
    assertFalse(r.metadata().hasMorePages());
    assertEquals(Optional.empty(), r.metadata().pagingState());
  }
}
