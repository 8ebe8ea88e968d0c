@NullMarked
package io.switchboard.tck.stress;

import org.jspecify.annotations.NullMarked;
