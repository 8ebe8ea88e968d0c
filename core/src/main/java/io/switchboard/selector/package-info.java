@NullMarked
package io.switchboard.selector;

import org.jspecify.annotations.NullMarked;
