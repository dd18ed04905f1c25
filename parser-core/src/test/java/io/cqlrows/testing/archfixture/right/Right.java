package io.cqlrows.testing.archfixture.right;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.testing.archfixture.left.Left;

/**
 * The other half of a deliberate package cycle, and a dependency parser-core must not have
 * (Jackson), for {@code ArchitectureRulesTest}.
 */
public final class Right {
  private Right() {}

  /** Depends back on {@link Left}. */
  public static int value() {
    return Left.value() + 1;
  }

  /** A class outside the JDK and netty-buffer. */
  public static ObjectMapper mapper() {
    return new ObjectMapper();
  }
}
