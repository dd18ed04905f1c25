package io.cqlrows.netty.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.rows.Expectations.Expectation;
import org.junit.jupiter.api.Test;

class ExpectationsTest {
  private static final Expectation MANUAL = new Expectation(new CountingSink(), null, false, null);

  @Test
  void handsOutIdsRoundRobinSoAFreedIdIsNotReusedAtOnce() {
    Expectations ids = new Expectations();
    assertEquals(0, ids.allocate());
    assertEquals(1, ids.allocate());
    ids.release(0);
    assertEquals(2, ids.allocate());
    assertEquals(2, ids.inUse());
  }

  @Test
  void allIdsCanBeInUseAndThenThereIsNone() {
    Expectations ids = new Expectations();
    for (int i = 0; i < Expectations.COUNT; i++) {
      assertEquals(i, ids.allocate());
    }
    assertEquals(-1, ids.allocate());
    ids.release(12345);
    assertEquals(12345, ids.allocate(), "wraps around to the only free id");
    assertEquals(-1, ids.allocate());
  }

  @Test
  void releasingAFreeOrForeignIdChangesNothing() {
    Expectations ids = new Expectations();
    ids.allocate();
    ids.release(5);
    ids.release(-1);
    ids.release(Expectations.COUNT);
    assertEquals(1, ids.inUse());
  }

  @Test
  void aRegisteredIdIsNotHandedOutAndAnIdInUseCannotBeRegistered() {
    Expectations ids = new Expectations();
    ids.register(0, MANUAL);
    assertEquals(1, ids.allocate(), "0 is registered");
    assertThrows(IllegalStateException.class, () -> ids.register(1, MANUAL));
    assertThrows(IllegalStateException.class, () -> ids.register(0, MANUAL));
    ids.remove(0);
    assertEquals(1, ids.inUse());
    ids.register(0, MANUAL);
  }

  @Test
  void anOrphanedIdStaysInUseUntilAdoptedOrCleared() {
    Expectations ids = new Expectations();
    int id = ids.allocate();
    ids.put(id, MANUAL);
    assertEquals(1, ids.orphan(id));
    assertTrue(ids.isOrphaned(id));
    assertEquals(0, ids.size(), "nothing registered");
    assertEquals(1, ids.inUse(), "but the id is in use");
    assertThrows(IllegalStateException.class, () -> ids.register(id, MANUAL));
    assertEquals(1, ids.orphan(id), "orphaned once");
    ids.adopt(id);
    assertFalse(ids.isOrphaned(id));
    assertEquals(0, ids.inUse());
    assertEquals(0, ids.orphans());

    int other = ids.allocate();
    ids.orphan(other);
    ids.clear();
    assertEquals(0, ids.inUse());
    assertFalse(ids.isOrphaned(other));
  }
}
