package io.cqlrows.testing.archfixture.left;

import io.cqlrows.testing.archfixture.right.Right;

/** Half of a deliberate package cycle, for {@code ArchitectureRulesTest}. */
public final class Left {
  private Left() {}

  /** Depends on the other package, which depends back on this one. */
  public static int viaRight() {
    return Right.value() + 1;
  }

  /** Called back from {@link Right}. */
  public static int value() {
    return 1;
  }
}
