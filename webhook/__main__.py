"""`python -m webhook …` is the `gardener-webhook` console script."""

from webhook.cli import entry

if __name__ == "__main__":
    entry()
