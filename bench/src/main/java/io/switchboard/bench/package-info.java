@NullMarked
package io.switchboard.bench;

import org.jspecify.annotations.NullMarked;
