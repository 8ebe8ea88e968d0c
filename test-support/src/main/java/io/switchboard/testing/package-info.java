/**
 * What the modules' tests share, so that each does not keep its own copy: {@link
 * io.switchboard.testing.Await} (a bounded wait for something another thread makes true), {@link
 * io.switchboard.testing.FreePorts}, {@link io.switchboard.testing.TempDirs} and {@link
 * io.switchboard.testing.Components} (copies of a record with one component changed each, for the
 * tests that a hand-written form of a record carries all of it). Test scope only: no main code
 * depends on this module.
 */
@NullMarked
package io.switchboard.testing;

import org.jspecify.annotations.NullMarked;
