"""`giftdesk completion bash|zsh|fish`: the shell completion script, from click's own.

Completion then offers commands and options, profile names (`--profile`),
wallets (`--wallet`) and recently looked-at RequestIds (`order show`, `--order`).
"""

from __future__ import annotations

import click

from tui.commands.options import debug_option

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VARIABLE = "_GIFTDESK_COMPLETE"  # click's convention: _<PROG>_COMPLETE


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@debug_option
def command(shell: str) -> None:
    """Print the shell completion script (bash, zsh, fish).

    Completes commands, options, profile names, wallets and the RequestIds
    of recently opened orders. Load it in your shell's start file:

    \b
      bash  (~/.bashrc):   eval "$(giftdesk completion bash)"
      zsh   (~/.zshrc):    eval "$(giftdesk completion zsh)"
      fish  (config.fish): giftdesk completion fish | source

    \b
    Examples:
      giftdesk completion bash >> ~/.bashrc
      giftdesk completion fish > ~/.config/fish/completions/giftdesk.fish
    """
    from click.shell_completion import get_completion_class

    main = click.get_current_context().find_root().command
    completion_class = get_completion_class(shell)
    if completion_class is None:  # click knows every shell in SHELLS
        raise click.UsageError(f"no completion for {shell}")
    click.echo(completion_class(main, {}, "giftdesk", COMPLETE_VARIABLE).source())
