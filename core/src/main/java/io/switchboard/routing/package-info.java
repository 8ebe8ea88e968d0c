/**
 * Not yet {@code @NullMarked}: this round's routing work (task-queue rules, workflows, lasting
 * statistics) landed beside the NullAway adoption, and its new code is still to be annotated
 * ({@code docs/decisions.md}, 2026-11-26, NullAway). The {@code @Nullable} annotations already here
 * say where null is meant; NullAway checks this package once it is marked.
 */
package io.switchboard.routing;
