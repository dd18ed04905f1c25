package io.cqlrows.netty.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.cqlrows.core.CqlException;
import io.cqlrows.netty.frame.CqlConnectionException.Reason;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The fields of a connection error, its typed reason, and the reason read from a cause. */
class CqlConnectionExceptionTest {
  @Test
  void theReasonIsTypedAtBothLevels() {
    CqlConnectionException e =
        new CqlConnectionException(Reason.REQUEST_TIMEOUT, "127.0.0.1:9042", 7, null, null);
    Reason own = e.reason(); // the override returns the connection errors' enum
    CqlException.Reason base = ((CqlException) e).reason();
    assertSame(Reason.REQUEST_TIMEOUT, own);
    assertSame(own, base, "the same constant through the base class");
    assertEquals("REQUEST_TIMEOUT", base.name());
    assertEquals("127.0.0.1:9042: stream 7: request timeout", e.getMessage());
  }

  @Test
  void aRefusedConnectionIsReadFromItsCause() {
    ConnectException refused = new ConnectException("Connection refused");
    String address = CqlConnectionException.address(new InetSocketAddress("127.0.0.1", 9042));
    CqlConnectionException e = CqlConnectionException.from(refused, address);
    assertSame(Reason.REFUSED, e.reason());
    assertEquals("127.0.0.1:9042", e.address());
    assertEquals(-1, e.streamId());
    assertSame(refused, e.getCause());
    assertSame(e, CqlConnectionException.from(e, "elsewhere:1"), "already a connection error");
    assertNull(CqlConnectionException.from(new IllegalStateException("bug"), address));
  }
}
