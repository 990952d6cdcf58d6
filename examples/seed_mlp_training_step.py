"""From "Understanding and Introspecting torch.autograd.backward": a network
Linear(3, 128) -> ReLU -> Linear(128, 10), MSE loss, SGD: one training step, by changing
only the import. Then a few more steps to show the loss going down.
"""

from diffcompare import autograd as ag
from diffcompare.autograd import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = ag.relu(self.fc1(x))
        return self.fc2(x)


ag.manual_seed(2)
net = Net()
criterion = nn.MSELoss()
optimizer = ag.optim.SGD(net.parameters(), lr=0.01)

input_tensor = ag.randn(1, 3)
target_tensor = ag.randn(1, 10)

output_tensor = net(input_tensor)
loss = criterion(output_tensor, target_tensor)
loss.backward()
optimizer.step()
print("first loss", round(loss.item(), 6))
print("gradient shapes", [tuple(p.grad.shape) for p in net.parameters()])
assert [tuple(p.grad.shape) for p in net.parameters()] == [(128, 3), (128,), (10, 128), (10,)]

first = loss.item()
for step in range(50):
    optimizer.zero_grad()
    loss = criterion(net(input_tensor), target_tensor)
    loss.backward()
    optimizer.step()
print("loss after 50 more steps", round(loss.item(), 6))
assert loss.item() < first
